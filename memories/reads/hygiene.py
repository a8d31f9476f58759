"""Store hygiene a team lead audits: reference integrity, the verification queue, near-copies.

- dangling references: targets no memory of the citing memory's band is named, grouped by
  target, with the tiers that do hold the name elsewhere;
- orphans: memories nothing references and that reference nothing;
- shadows: project memories that say the same as a global one (the same words, or the same
  by meaning), which every session on that project then reads twice;
- the verification queue: memories unverified for longer than a period, oldest first;
- near-duplicates grouped within a band, by the rule the write door's note uses
  (meaning.say_the_same over the memories' vectors);
- memories holding a credential, by the rule the write doors refuse one by (secrets.held);
- facts and their corrections: two memories of one tier alike in meaning whose descriptions
  differ by a changed value (a number, a host, a name, a date), the newer a candidate to
  supersede the older; listed for a writer to mark, never marked here.
"""

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, Sum
from django.utils import timezone

from memories.engine.hints import Unindexed
from memories.models import (
    GLOBAL_TIER,
    INDEX_ORDER,
    DanglingTally,
    DanglingTotal,
    Memory,
    Orphan,
    OrphanTally,
    Reference,
    Wording,
    WordingTally,
)
from memories.models import DanglingTarget as TargetTally
from memories.reads import graph, meaning
from memories.reads.backlinks import CITATION_FIELDS, backlink
from memories.reads.filters import MemoryFilters
from memories.reads.listing import WALK_AFTER, list_memories
from memories.reads.meaning import id_set
from memories.rules import secrets, similarity, tiers
from memories.rules.tiers import ANY_TIER

DEFAULT_PERIOD = "90d"
SECTION_LIMIT = 50
GROUP_MEMBERS_SHOWN = 12
# A scope the tallies do not keep (a tag, a load, an expiry, a reference...) is read as far as
# a page of it needs: its orphans and its verification queue are counted up to COUNT_BOUND
# ("2,000+"), and its dangling targets are those its newest SCOPE_READ memories cite. Read
# whole at 1,000,000 memories, the orphans of a tag took most of a second to count, and the
# dangling targets of the memories of one load many seconds to rank
# (bench/results/2026-12-03-run-17).
COUNT_BOUND = 2000
SCOPE_READ = 2000


@dataclass
class Section:
    """One list of the hygiene report: a page of items and how many there are in all (or, with
    `more`, at least: the count stopped at COUNT_BOUND)."""

    items: list
    count: int
    limit: int
    offset: int = 0
    more: bool = False
    # What part of the scope the items and the count were drawn from, when not all of it.
    drawn_from: str | None = None

    @property
    def count_label(self) -> str:
        return f"{self.count:,}+" if self.more else f"{self.count:,}"

    @property
    def shown_to(self) -> int:
        """The position of the last item of this page, counting from 1."""
        return self.offset + len(self.items)

    def to_dict(self, now=None) -> dict:
        return {
            "count": self.count,
            "more": self.more,
            "drawn_from": self.drawn_from,
            "limit": self.limit,
            "offset": self.offset,
            "items": [
                item.to_dict(now) if isinstance(item, Memory) else item.to_dict()
                for item in self.items
            ],
        }

    @property
    def previous_offset(self) -> int | None:
        return max(self.offset - self.limit, 0) if self.offset else None

    @property
    def next_offset(self) -> int | None:
        if self.shown_to < self.count or (self.more and len(self.items) == self.limit):
            return self.shown_to
        return None


def _tallied(scope: MemoryFilters) -> bool:
    """Whether the tallies keep the scope's sections: the whole store, or one tier."""
    return not replace(scope, project=ANY_TIER).active


def _scope(filters: MemoryFilters | None) -> MemoryFilters:
    return filters or MemoryFilters()


# --- reference integrity -------------------------------------------------------------------


# What a dangling target shows of its first citers: up to 600 on a page, whose dates and
# lists, converted for nothing, were most of the section's reading (profiled:
# bench/results/2026-12-04-figures-from-comments).
CITER_FIELDS = (*CITATION_FIELDS, "project__name")


@dataclass
class DanglingTarget:
    target: str
    kind: str  # one of graph.DANGLING_KINDS
    citing: list[Memory]  # the first GROUP_MEMBERS_SHOWN, index order
    citing_count: int
    held_elsewhere: list[str] = field(default_factory=list)  # tiers holding the name

    @property
    def more_citing(self) -> int:
        return self.citing_count - len(self.citing)

    def to_dict(self) -> dict:
        return {
            "target": self.target,
            "kind": self.kind,
            "citing_count": self.citing_count,
            "citing": [backlink(m) for m in self.citing],
            "held_elsewhere": self.held_elsewhere,
        }


def dangling(
    filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0, now=None
) -> Section:
    """Targets the scope's memories cite that name no memory of their band: most cited first.

    The whole store or one tier is read off the dangling tally, a page of targets in its
    index order and only their citers' references after; any other scope resolves the
    references of its newest SCOPE_READ memories (all of them when it holds no more).
    """
    scope = _scope(filters)
    if _tallied(scope):
        return _tallied_dangling(scope.tier_key(), limit, offset)
    memories, whole = graph.newest_in_scope(scope, now or timezone.now(), SCOPE_READ)
    drawn_from = None if whole else f"the newest {len(memories):,} memories of the scope"
    return _dangling(graph.dangling_links(memories), limit, offset, drawn_from)


def _dangling(
    links: list[graph.Link], limit: int, offset: int, drawn_from: str | None = None
) -> Section:
    citing: dict[str, list[int]] = defaultdict(list)
    for link in links:
        citing[link.target].append(link.source)
    ranked = sorted(citing, key=lambda target: (-len(citing[target]), target))
    page = [(target, len(citing[target])) for target in ranked[offset : offset + limit]]
    shown = _first_in_index_order([citing[target] for target, _ in page], only=CITER_FIELDS)
    return Section(
        _dangling_targets(page, shown), len(ranked), limit, offset, drawn_from=drawn_from
    )


def _tallied_dangling(tier: int | None, limit: int, offset: int) -> Section:
    """The dangling section of the whole store (`tier` None) or of one tier, off the tally:
    its count, a page of (target, references) most cited first, then the first citers of
    each (_first_citers)."""
    if tier is None:
        ranked, count = TargetTally.objects.all(), _total_targets()
    else:
        ranked = DanglingTally.objects.filter(tier=tier)
        count = ranked.count()
    in_order = ranked.order_by("-refs", "target").values_list("target", "refs")
    page = list(in_order[offset : offset + limit])
    citing = _first_citers([target for target, _ in page], tier)
    shown = _loaded([citing.get(target, []) for target, _ in page], only=CITER_FIELDS)
    return Section(_dangling_targets(page, shown), count, limit, offset)


def _first_citers(targets: list[str], tier: int | None) -> dict[str, list[int]]:
    """The first GROUP_MEMBERS_SHOWN memories citing each target where it dangles (in `tier`,
    or in any tier the tally holds it for), in index order: the first rows of each target's
    range of reference_citer_order, one statement for all. Ranking every citer grew with the
    store, as the most cited targets' citers do (bench/results/2026-12-02-targets-11;
    bench/results/2026-12-04-figures-from-comments)."""
    if not targets:
        return {}
    if tier is None:
        dangles = DanglingTally.objects.filter(target=OuterRef("target"), tier=OuterRef("tier"))
        where = Exists(dangles)
    else:
        # Unindexed: the citer order's range is walked rather than (target, tier)'s sorted.
        where = Q(_unindexed_tier=tier)
    # The arm is compiled once, its target swapped in: compiling it for each of a page's
    # targets cost the section more (bench/results/2026-12-04-figures-from-comments).
    marker = "\x00target"
    arm = (
        Reference.objects.alias(_unindexed_tier=Unindexed(F("tier")))
        .filter(where, target=marker)
        .order_by("priority", "-created_at", "-memory_id")
        .values_list("target", "priority", "created_at", "memory_id")[:GROUP_MEMBERS_SHOWN]
    )
    sql, arm_params = arm.query.sql_with_params()
    at = arm_params.index(marker)
    arms, params = [], []
    for number, target in enumerate(targets):
        arms.append(f"SELECT * FROM ({sql}) AS first{number}")
        params.extend((*arm_params[:at], target, *arm_params[at + 1 :]))
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(arms), params)
        rows = cursor.fetchall()
    # A compound statement keeps no order: each target's in index order again (stable sorts,
    # the last key first, as created_at is read as the engine gives it).
    rows.sort(key=lambda row: row[3], reverse=True)
    rows.sort(key=lambda row: row[2], reverse=True)
    rows.sort(key=lambda row: row[1])
    citing: dict[str, list[int]] = defaultdict(list)
    for target, _, _, memory_id in rows:
        citing[target].append(memory_id)
    return citing


def _total_targets() -> int:
    total = DanglingTotal.objects.values_list("targets", flat=True).first()
    return total or 0


def _dangling_targets(
    page: list[tuple[str, int]], shown: list[list[Memory]]
) -> list["DanglingTarget"]:
    """The page's targets with their references and first citers (`shown`), and the tiers
    that hold the name elsewhere."""
    elsewhere: dict[str, list[str]] = defaultdict(list)
    names = [target for target, _ in page]
    for name, project in (
        Memory.objects.filter(name__in=names).values_list("name", "project__name").order_by()
    ):
        elsewhere[name].append(tiers.label(project))
    return [
        DanglingTarget(
            target=target,
            kind=graph.target_kind(target),
            citing=first,
            citing_count=refs,
            held_elsewhere=sorted(elsewhere.get(target, [])),
        )
        for (target, refs), first in zip(page, shown, strict=True)
    ]


def _first_in_index_order(
    groups: list[list[int]], *, only: tuple[str, ...] | None = None
) -> list[list[Memory]]:
    """The first GROUP_MEMBERS_SHOWN memories of each group of ids, in index order.

    Two queries however large the groups: their order keys first, then only the memories
    shown (a URL cited by thousands must not load thousands of rows).
    """
    wanted = {memory_id for ids in groups for memory_id in ids}
    keys = {
        memory_id: (priority, -created_at.timestamp(), -memory_id)
        for memory_id, priority, created_at in Memory.objects.filter(id__in=id_set(sorted(wanted)))
        .order_by()
        .values_list("id", "priority", "created_at")
    }
    firsts = [sorted(ids, key=keys.__getitem__)[:GROUP_MEMBERS_SHOWN] for ids in groups]
    return _loaded(firsts, only=only)


def _loaded(firsts: list[list[int]], *, only: tuple[str, ...] | None = None) -> list[list[Memory]]:
    """The memories of each list of ids, in its order (one query), with `only` those fields."""
    loaded = Memory.objects.select_related("project").filter(
        id__in={memory_id for first in firsts for memory_id in first}
    )
    if only is not None:
        loaded = loaded.only(*only)
    memories = {memory.id: memory for memory in loaded}
    return [[memories[memory_id] for memory_id in first] for first in firsts]


def orphans(
    filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0, now=None
) -> Section:
    """Memories that reference nothing and that no reference resolves to, in index order.

    The scope's memories are walked in that order, each testing the orphans the triggers
    keep (memories.models.Orphan). The count of the whole store or of one tier is read off
    their tally; any other scope counts its memories that are orphans up to COUNT_BOUND.
    """
    scope = _scope(filters)
    orphaned = Memory.objects.select_related("project").filter(
        Exists(Orphan.objects.filter(memory_id=OuterRef("id")))
    )
    if _tallied(scope):
        tier = scope.tier_key()
        tallies = OrphanTally.objects.filter(**({} if tier is None else {"tier": tier}))
        count, more = tallies.aggregate(memories=Sum("memories"))["memories"] or 0, False
        queryset = scope.apply(orphaned, now)
    else:
        count, more = scope.count_bounded(orphaned, now, COUNT_BOUND)
        # Many walk the index order testing each memory; a few are looked up and sorted.
        walk = more or count > WALK_AFTER
        queryset = scope.apply(orphaned, now, walk_order=walk, sparse=not walk)
    items = list(queryset.order_by(*INDEX_ORDER)[offset : offset + limit])
    return Section(items, count, limit, offset, more=more)


# --- verification ---------------------------------------------------------------------------


def verification_queue(
    filters: MemoryFilters | None = None,
    *,
    period: str = DEFAULT_PERIOD,
    limit=SECTION_LIMIT,
    offset=0,
    now=None,
) -> Section:
    """Memories not verified within `period` (such as "90d"), the longest unverified first."""
    scope = replace(_scope(filters), unverified=period)
    page = list_memories(
        scope, limit=limit, offset=offset, sort="verified", now=now, bound=COUNT_BOUND
    )
    return Section(page.memories, page.count, limit, offset, more=page.more)


# --- near-copies ----------------------------------------------------------------------------


@dataclass
class Similarity:
    """The distinct descriptions of a scope and which of them say the same.

    Wordings are numbered; `members[n]` holds (tier, memory id) of every memory whose
    description is wording n (as similarity.words), `pairs` the wordings whose memories say
    the same by meaning (meaning.alike_pairs), with their cosine.
    """

    words: list[str]
    members: list[list[tuple[int, int]]]
    pairs: list[tuple[int, int, float]]

    def by_tier(self, positions) -> dict[int, list[int]]:
        tiers: dict[int, list[int]] = defaultdict(list)
        for position in positions:
            for tier, memory_id in self.members[position]:
                tiers[tier].append(memory_id)
        return tiers


def _similarity(filters: MemoryFilters | None, now=None) -> Similarity:
    """The descriptions of the memories the filters admit, a project's tier taken as its band
    (the project's memories and the global ones, which its sessions see beside them).

    Only the memories that can be near-copies are read: those whose wording key another
    memory shares (or is not worked out yet) and those in a pair by meaning. A wording
    neither shared nor paired groups with nothing and shadows nothing."""
    scope = _scope(filters)
    tier_key = scope.tier_key()
    # Walked: each candidate tests the filters, where a tag's index would gather all its
    # memories first (bench/results/2026-12-03-quiet-14).
    queryset = replace(scope, project=ANY_TIER).apply(
        Memory.objects.order_by("id"), now, walk_order=True
    )
    if tier_key is not None:
        queryset = queryset.filter(tier__in={GLOBAL_TIER, tier_key})
    candidates = _sharing_a_wording() | meaning.paired_ids()
    rows = queryset.filter(id__in=id_set(candidates)).values_list("tier", "id", "description")
    wordings = _numbered(rows)
    return Similarity(wordings.words, wordings.members, _near_pairs(wordings))


def _sharing_a_wording() -> set[int]:
    """The memories whose wording key another memory's is: by the count of each key, and for
    a key not worked out yet (a description written past the doors), by the key of its
    description, which any other memory's may be."""
    shared = WordingTally.objects.filter(memories__gte=2).exclude(wording="").values("wording")
    found = dict(
        Wording.objects.filter(Q(wording__in=shared) | Q(wording__isnull=True)).values_list(
            "memory_id", "wording"
        )
    )
    unknown = [memory_id for memory_id, key in found.items() if key is None]
    if unknown:
        keys = {
            similarity.wording(description)
            for description in Memory.objects.filter(id__in=id_set(unknown)).values_list(
                "description", flat=True
            )
        }
        found.update(
            Wording.objects.filter(wording__in=keys - {""}).values_list("memory_id", "wording")
        )
    return set(found)


@dataclass
class _Wordings:
    """The rows read numbered by wording (as Similarity), each memory's wording's number
    and description."""

    words: list[str] = field(default_factory=list)
    members: list[list[tuple[int, int]]] = field(default_factory=list)
    position_of: dict[int, int] = field(default_factory=dict)
    descriptions: dict[int, str] = field(default_factory=dict)


def _numbered(rows) -> _Wordings:
    """The wordings of these (tier, id, description) rows, numbered as they first come."""
    found = _Wordings()
    index: dict[str, int] = {}
    for tier, memory_id, description in rows:
        words = similarity.words(description)
        if not words:
            continue
        position = index.get(words)
        if position is None:
            position = index[words] = len(found.words)
            found.words.append(words)
            found.members.append([])
        found.members[position].append((tier, memory_id))
        found.position_of[memory_id] = position
        found.descriptions[memory_id] = description
    return found


def _near_pairs(wordings: _Wordings) -> list[tuple[int, int, float]]:
    """Pairs of distinct wordings whose memories say the same by meaning, as (position,
    position, cosine): within the global tier, within a project's, or a project's against the
    global one (what one session sees together); the best cosine of each pair of wordings."""
    by_tier: dict[int, list[int]] = defaultdict(list)
    for held in wordings.members:
        for tier, memory_id in held:
            by_tier[tier].append(memory_id)
    best: dict[tuple[int, int], float] = {}
    position_of = wordings.position_of
    for a, b, cosine in meaning.alike_pairs(by_tier, descriptions=wordings.descriptions):
        x, y = sorted((position_of[a], position_of[b]))
        if x != y:
            best[(x, y)] = max(cosine, best.get((x, y), 0.0))
    return [(x, y, cosine) for (x, y), cosine in best.items()]


@dataclass
class DuplicateGroup:
    memories: list[Memory]  # the first GROUP_MEMBERS_SHOWN, index order
    size: int
    identical: bool  # every description in it says exactly the same words

    @property
    def more(self) -> int:
        return self.size - len(self.memories)

    def to_dict(self) -> dict:
        return {
            "size": self.size,
            "identical": self.identical,
            "memories": [backlink(m) for m in self.memories],
        }


def duplicate_groups(
    filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0
) -> Section:
    """Memories whose descriptions say the same or nearly the same, grouped: largest first.

    Two memories group only when one session could see both (same tier, or one is global).
    """
    return _duplicate_groups(_similarity(filters), limit, offset)


def _groups(found: Similarity) -> list[tuple[list[int], bool]]:
    """Memory ids grouped around a centre wording and the wordings near it, as (ids, identical).

    Each wording joins one group only, so a chain of small differences does not merge
    unrelated descriptions. A group is split by tier unless a global memory is in it.
    """
    neighbours: dict[int, list[int]] = defaultdict(list)
    for a, b, _ in found.pairs:
        neighbours[a].append(b)
        neighbours[b].append(a)
    candidates = set(neighbours) | {
        position for position, held in enumerate(found.members) if len(held) > 1
    }
    weight = {
        position: len(found.members[position])
        + sum(len(found.members[other]) for other in neighbours[position])
        for position in candidates
    }
    assigned: set[int] = set()
    groups = []
    for centre in sorted(weight, key=lambda position: (-weight[position], position)):
        if centre in assigned:
            continue
        cluster = [centre, *(other for other in neighbours[centre] if other not in assigned)]
        assigned.update(cluster)
        by_tier = found.by_tier(cluster)
        identical = len(cluster) == 1
        if GLOBAL_TIER in by_tier:
            everyone = sorted(i for ids in by_tier.values() for i in ids)
            if len(everyone) > 1:
                groups.append((everyone, identical))
            continue
        groups.extend((sorted(ids), identical) for ids in by_tier.values() if len(ids) > 1)
    groups.sort(key=lambda group: (-len(group[0]), group[0][0]))
    return groups


def _duplicate_groups(found: Similarity, limit: int, offset: int) -> Section:
    groups = _groups(found)
    page = groups[offset : offset + limit]
    shown = _first_in_index_order([ids for ids, _ in page])
    items = [
        DuplicateGroup(memories=first, size=len(ids), identical=identical)
        for (ids, identical), first in zip(page, shown, strict=True)
    ]
    return Section(items, len(groups), limit, offset)


@dataclass
class Shadow:
    memory: Memory  # the project memory
    shadows: Memory  # the global memory it repeats
    ratio: float  # 1.0 for the same words, else the cosine by meaning (meaning.alike_pairs)

    @property
    def identical(self) -> bool:
        return self.ratio == 1.0

    def to_dict(self) -> dict:
        return {
            "memory": backlink(self.memory),
            "shadows": backlink(self.shadows),
            "ratio": round(self.ratio, 4),
        }


def shadows(filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0) -> Section:
    """Project memories whose description is the same or nearly the same as a global one's."""
    return _shadows(_similarity(filters), limit, offset)


def _shadows(found: Similarity, limit: int, offset: int) -> Section:
    best: dict[int, tuple[int, float]] = {}  # project memory -> (global memory, ratio)

    def consider(a: int, b: int, ratio: float) -> None:
        globals_ = [i for tier, i in found.members[b] if tier == GLOBAL_TIER]
        if not globals_:
            return
        for tier, memory_id in found.members[a]:
            if tier != GLOBAL_TIER and ratio > best.get(memory_id, (0, 0.0))[1]:
                best[memory_id] = (globals_[0], ratio)

    for position, held in enumerate(found.members):
        if len(held) > 1:
            consider(position, position, 1.0)
    for a, b, ratio in found.pairs:
        consider(a, b, ratio)
        consider(b, a, ratio)
    pairs = sorted(best.items(), key=lambda item: (-item[1][1], item[0]))
    page = pairs[offset : offset + limit]
    wanted = {i for project_id, (global_id, _) in page for i in (project_id, global_id)}
    memories = {m.id: m for m in Memory.objects.select_related("project").filter(id__in=wanted)}
    items = [
        Shadow(memories[project_id], memories[global_id], ratio)
        for project_id, (global_id, ratio) in page
    ]
    return Section(items, len(pairs), limit, offset)


# --- side by side ---------------------------------------------------------------------------

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass
class Segment:
    text: str
    changed: bool


def marked_diff(a: str, b: str) -> tuple[list[Segment], list[Segment]]:
    """Both texts cut into segments, the words one has and the other lacks marked changed."""
    left, right = _TOKEN.findall(a), _TOKEN.findall(b)
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    ours, theirs = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        changed = tag != "equal"
        if i2 > i1:
            ours.append(Segment("".join(left[i1:i2]), changed))
        if j2 > j1:
            theirs.append(Segment("".join(right[j1:j2]), changed))
    return ours, theirs


@dataclass
class Comparison:
    memories: list[Memory]
    descriptions: list[list[Segment]]  # each against the first memory's
    bodies: list[list[Segment]]
    ratios: list[float]  # each description's similarity to the first's
    differing: list[set[str]]  # the fields (COMPARED_FIELDS) each holds otherwise than the first


MAX_COMPARED = 4
COMPARED_FIELDS = ("project_id", "load", "priority", "tags", "references", "expires_at")


def _differing(a: Memory, b: Memory) -> set[str]:
    return {name for name in COMPARED_FIELDS if getattr(a, name) != getattr(b, name)}


def compare(memory_ids: list[int]) -> Comparison:
    """Up to four memories side by side, each marked where it differs from the first."""
    found = {m.id: m for m in Memory.objects.select_related("project").filter(id__in=memory_ids)}
    memories = [found[i] for i in dict.fromkeys(memory_ids) if i in found][:MAX_COMPARED]
    if not memories:
        return Comparison([], [], [], [], [])
    first = memories[0]
    second = memories[1] if len(memories) > 1 else first
    descriptions = [marked_diff(first.description, second.description)[0]]
    bodies = [marked_diff(first.body, second.body)[0]]
    ratios = [1.0]
    differing = [_differing(first, second)]
    for memory in memories[1:]:
        descriptions.append(marked_diff(first.description, memory.description)[1])
        bodies.append(marked_diff(first.body, memory.body)[1])
        ratios.append(
            similarity.ratio(
                similarity.words(first.description), similarity.words(memory.description)
            )
        )
        differing.append(_differing(first, memory))
    return Comparison(memories, descriptions, bodies, ratios, differing)


@dataclass
class Report:
    dangling: Section
    orphans: Section
    shadows: Section
    unverified: Section
    duplicates: Section
    period: str

    def to_dict(self, now=None) -> dict:
        return {
            "period": self.period,
            **{name: getattr(self, name).to_dict(now) for name in SECTIONS},
        }


SECTIONS = ("dangling", "orphans", "shadows", "unverified", "duplicates")
# Each list `section()` gives a page of: the report's, and the memories holding a credential,
# which reads every memory of the scope and so is asked for alone.
LISTS = (*SECTIONS, "secrets")


def report(
    filters: MemoryFilters | None = None,
    *,
    period: str = DEFAULT_PERIOD,
    limit=SECTION_LIMIT,
    now=None,
) -> Report:
    """Every section, the first `limit` items of each; the descriptions are read once for the
    near-copies and the shadows."""
    now = now or timezone.now()
    alike = _similarity(filters)
    return Report(
        dangling=dangling(filters, limit=limit, now=now),
        orphans=orphans(filters, limit=limit, now=now),
        shadows=_shadows(alike, limit, 0),
        unverified=verification_queue(filters, period=period, limit=limit, now=now),
        duplicates=_duplicate_groups(alike, limit, 0),
        period=period,
    )


# --- credentials ----------------------------------------------------------------------------


@dataclass
class HoldingSecret:
    memory: Memory
    found: list  # of secrets.Held: the field, the kind, the line number and the line masked

    def to_dict(self) -> dict:
        return {
            "memory": backlink(self.memory),
            "found": [
                {"field": h.field, "kind": h.kind, "line": h.line, "shown": h.shown}
                for h in self.found
            ],
        }


def holding_secrets(
    filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0, now=None
) -> Section:
    """The memories of the scope holding a credential by the write doors' rule (let in by an
    admin, or written before the rule), in index order, each with its lines masked. Every
    memory of the scope is read: this list is on its own page, not in the report."""
    scope = _scope(filters)
    memories = scope.apply(Memory.objects.select_related("project"), now).order_by(*INDEX_ORDER)
    holding = []
    for memory in memories.iterator(chunk_size=500):
        found = secrets.held(vars(memory))
        if found:
            holding.append(HoldingSecret(memory, found))
    return Section(holding[offset : offset + limit], len(holding), limit, offset)


# --- corrections ----------------------------------------------------------------------------


@dataclass
class Correction:
    """Two memories of one tier alike in meaning whose descriptions state a different value
    (facts.differ): the newer may correct the older."""

    older: Memory
    newer: Memory
    cosine: float

    def to_dict(self) -> dict:
        return {
            "older": backlink(self.older),
            "newer": backlink(self.newer),
            "cosine": round(self.cosine, 4),
        }


def corrections(
    filters: MemoryFilters | None = None, *, limit=SECTION_LIMIT, offset=0, now=None
) -> Section:
    """Pairs of memories of the scope, each pair of one tier and neither superseded, that look
    like a fact and its correction (meaning.changed_value_pairs), the most alike first. A
    writer marks one superseded through the write door; nothing here writes."""
    scope = _scope(filters)
    queryset = scope.apply(Memory.objects.order_by("id"), now, walk_order=True)
    rows = queryset.filter(
        id__in=id_set(meaning.paired_ids()), superseded_by__isnull=True
    ).values_list("tier", "id")
    by_tier: dict[int, list[int]] = defaultdict(list)
    for tier, memory_id in rows:
        by_tier[tier].append(memory_id)
    pairs = meaning.changed_value_pairs(by_tier) if by_tier else []
    page = pairs[offset : offset + limit]
    wanted = {memory_id for pair in page for memory_id in pair[:2]}
    memories = Memory.objects.select_related("project").in_bulk(wanted)
    items = []
    for a, b, cosine in page:
        older, newer = sorted((memories[a], memories[b]), key=lambda m: (m.created_at, m.id))
        items.append(Correction(older, newer, cosine))
    return Section(items, len(pairs), limit, offset)


def section(
    name: str,
    filters: MemoryFilters | None = None,
    *,
    period: str = DEFAULT_PERIOD,
    limit=SECTION_LIMIT,
    offset=0,
    now=None,
) -> Section:
    """One list by its name (one of LISTS), a page of it."""
    page = {"limit": limit, "offset": offset}
    if name == "secrets":
        return holding_secrets(filters, now=now, **page)
    if name == "dangling":
        return dangling(filters, now=now, **page)
    if name == "orphans":
        return orphans(filters, now=now, **page)
    if name == "shadows":
        return shadows(filters, **page)
    if name == "unverified":
        return verification_queue(filters, period=period, now=now, **page)
    if name == "duplicates":
        return duplicate_groups(filters, **page)
    if name == "corrections":
        return corrections(filters, now=now, **page)
    raise ValueError(f"no hygiene section {name!r}")
