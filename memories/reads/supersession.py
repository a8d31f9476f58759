"""What supersession changes in reading: a superseded hit ranked just below its successor, and
the memories a memory supersedes (its page's and /v1's `replaces`).

A memory names its successor (Memory.superseded_by), a memory of its own tier when the write
door marked it; its force ended then through its expiry, so the band and the index already
leave it out.
"""

from memories.models import GLOBAL_TIER, Memory
from memories.reads import rows

# What a replaced memory is shown with: a link, its tier and its description.
_REPLACED_ATTNAMES = tuple(
    Memory._meta.get_field(name).attname
    for name in ("id", "name", "description", "project", "tier", "superseded_by")
)


def below_successors(hits: list) -> list:
    """A page of search hits with each superseded hit moved to just after its successor when
    that is on the page too, its score lowered to the successor's: a stale fact never
    outranks its own correction. The rest keep their order. A hit whose successor is not on
    the page stays where it ranked, marked superseded wherever it is shown."""
    placed = {(hit.memory.project_id, hit.memory.name): hit for hit in hits}
    under: dict[int, list] = {}
    for hit in hits:
        successor = placed.get((hit.memory.project_id, hit.memory.superseded_by))
        if successor is not None and successor is not hit:
            under.setdefault(id(successor), []).append(hit)
    below = {id(hit) for followers in under.values() for hit in followers}
    ordered: list = []
    seen: set[int] = set()

    def place(hit, ceiling: float | None) -> None:
        if id(hit) in seen:
            return
        seen.add(id(hit))
        if ceiling is not None:
            hit.score = min(hit.score, ceiling)
        ordered.append(hit)
        for follower in under.get(id(hit), ()):
            place(follower, hit.score)

    for hit in hits:
        if id(hit) not in below:
            place(hit, None)
    for hit in hits:  # a loop of successors, which the door never writes: kept in rank order
        place(hit, None)
    return ordered


def replaced_by(memory: Memory) -> list[Memory]:
    """The memories of its tier that `memory` supersedes, in index order (read as a plain
    statement: compiling the queryset cost more than the rest of a /v1 get)."""
    return rows.select(
        f'{rows.M}."superseded_by" = %s AND {rows.M}."tier" = %s',
        [memory.name, memory.project_id or GLOBAL_TIER],
        attnames=_REPLACED_ATTNAMES,
    )
