"""References between memories: who cites a memory, what its references resolve to
(by band), the citation counts of a page, the dangling references."""

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from memories.models import GLOBAL_TIER, Memory, Reference
from memories.reads import rows, supersession

# What a citing or cited memory is shown with (a link, its tier, its description): the
# rows of a much-cited memory's citers are read without their bodies.
CITATION_FIELDS = ("name", "description", "project", "tier")


def cites_from_band(citing_tier: int, cited_tier: int) -> bool:
    """Whether a memory of `citing_tier` naming a memory of `cited_tier` means that one.

    A project memory is cited by its own project's memories and by global ones; memories of
    another project citing the same name mean their own.
    """
    return cited_tier == GLOBAL_TIER or citing_tier in (GLOBAL_TIER, cited_tier)


_CITATION_ATTNAMES = tuple(
    Memory._meta.get_field(name).attname for name in ("id", *CITATION_FIELDS)
)


def referenced_by(memory: Memory) -> list[Memory]:
    """Memories whose references name this one, as seen from their own band."""
    where = (
        f'{rows.M}."id" IN (SELECT "memory_id" FROM {Reference._meta.db_table} WHERE "target" = %s)'
        f' AND {rows.M}."id" <> %s'
    )
    params = [memory.name, memory.id]
    if memory.tier != GLOBAL_TIER:
        where += f' AND {rows.M}."tier" IN (%s, %s)'
        params += [GLOBAL_TIER, memory.tier]
    return rows.select(where, params, attnames=_CITATION_ATTNAMES)


def backlink(citing: Memory) -> dict:
    """One entry of `referenced_by`, as the API and a delete's answer give it."""
    return {"name": citing.name, "project": citing.project_name, "description": citing.description}


def referenced_by_each(memories: list[Memory]) -> dict[int, list[Memory]]:
    """referenced_by for several memories in one query (the bulk delete's confirmation)."""
    found: dict[int, list[Memory]] = {m.id: [] for m in memories}
    if not memories:
        return found
    by_name: dict[str, list[Memory]] = {}
    for memory in memories:
        by_name.setdefault(memory.name, []).append(memory)
    citations = (
        Reference.objects.filter(target__in=list(by_name))
        .select_related("memory", "memory__project")
        .order_by("memory__priority", "-memory__created_at", "-memory_id")
    )
    for citation in citations:
        citing = citation.memory
        for cited in by_name[citation.target]:
            if citing.id != cited.id and cites_from_band(citing.tier, cited.tier):
                found[cited.id].append(citing)
    return found


def citation_counts(memories: list[Memory]) -> dict[int, int]:
    """How many memories reference each of these, counted as referenced_by counts them."""
    counts = {m.id: 0 for m in memories}
    if not memories:
        return counts
    names = list({m.name for m in memories})
    citing_tiers = defaultdict(list)  # cited name: (tier of the citing memories, how many)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.target, m.tier, COUNT(*) FROM memories_reference r "
            "JOIN memories_memory m ON m.id = r.memory_id "
            f"WHERE r.target IN ({', '.join(['%s'] * len(names))}) GROUP BY r.target, m.tier",
            names,
        )
        for target, tier, citing in cursor.fetchall():
            citing_tiers[target].append((tier, citing))
    for memory in memories:
        for citing_tier, citing in citing_tiers[memory.name]:
            if cites_from_band(citing_tier, memory.tier):
                counts[memory.id] += citing
        if memory.name in memory.references:
            counts[memory.id] -= 1
    return counts


def backlink_dicts(memory: Memory) -> list[dict]:
    return [backlink(m) for m in referenced_by(memory)]


@dataclass
class ResolvedReference:
    target: str
    memory: Memory | None  # None: dangling (a path, URL, id, or a note still to write)


def detail_dict(memory: Memory, now=None) -> dict:
    """One memory whole, as /v1 answers for it and its page offers as JSON: its list form,
    its body, the memories citing it and those it supersedes."""
    return {
        **memory.to_dict(now),
        "body": memory.body,
        "referenced_by": backlink_dicts(memory),
        "replaces": [backlink(old) for old in supersession.replaced_by(memory)],
    }


def resolve_references(memory: Memory) -> list[ResolvedReference]:
    """Each reference with the memory it names, looked up in the citing memory's band."""
    if not memory.references:
        return []
    names = list(dict.fromkeys(memory.references))
    candidates = rows.select(
        f'{rows.M}."name" IN ({", ".join(["%s"] * len(names))})',
        names,
        attnames=_CITATION_ATTNAMES,
        order=(),
    )
    by_name: dict[str, list[Memory]] = {}
    for candidate in candidates:
        by_name.setdefault(candidate.name, []).append(candidate)
    return [
        ResolvedReference(target, _memory_in_band(by_name.get(target, []), memory.tier))
        for target in memory.references
    ]


def _memory_in_band(options: list[Memory], tier: int) -> Memory | None:
    chosen = resolve_in_band([(m, m.tier) for m in options], tier)
    return chosen[0] if chosen else None


def resolve_in_band(options: list[tuple], tier: int) -> tuple | None:
    """Which of the memories holding a cited name a memory of `tier` means, or None.

    `options` pairs every memory of that name (or its id) with its tier; the chosen pair is
    returned. A memory's band is the global tier and its own; a global memory citing a name
    only projects hold means the project's memory when just one project holds it.
    """
    for option in options:
        if option[1] == GLOBAL_TIER or option[1] == tier:
            return option
    if tier == GLOBAL_TIER and len(options) == 1:
        return options[0]
    return None


def dangling_references() -> QuerySet:
    """References naming no memory of the citing memory's band: the rule of resolve_in_band
    (and of the graph and Hygiene), so a project memory citing a name only another project
    holds is dangling, and a global one citing a name a single project holds is not."""
    holders = Memory.objects.filter(name=OuterRef("target")).order_by()
    # By project_id rather than tier: the (name, project_id) index answers it alone. The
    # citing band is the reference row's own (reference_target_tier covers both), not read
    # off the citing memory's row.
    in_band = holders.filter(Q(project_id__isnull=True) | Q(project_id=OuterRef("tier")))
    namesake = Memory.objects.filter(name=OuterRef("name")).exclude(id=OuterRef("id"))
    sole_holder = holders.filter(~Exists(namesake))
    return (
        Reference.objects.select_related("memory", "memory__project")
        .filter(~Exists(in_band))
        .exclude(Q(tier=GLOBAL_TIER) & Exists(sole_holder))
        .order_by("target", "memory_id")
    )
