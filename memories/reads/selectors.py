"""Reads of the store shared by pages, the API and commands: listing, lookup, backlinks."""

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory, Reference
from memories.reads import budget, pagination
from memories.reads.filters import MemoryFilters
from memories.rules import fields
from memories.rules.budget import Band
from memories.rules.errors import AmbiguousName, MemoryNotFound
from memories.rules.tiers import ANY_TIER
from projects.models import Project

# Index order: most important first, then the most recently recorded within a priority.
INDEX_ORDER = ("priority", "-created_at", "-id")

SORTS = {
    "index": INDEX_ORDER,
    "name": ("name", "tier"),
    "-name": ("-name", "-tier"),
    "tier": ("tier", *INDEX_ORDER),
    "priority": INDEX_ORDER,
    "-priority": ("-priority", "-created_at", "-id"),
    "created": ("created_at", "id"),
    "-created": ("-created_at", "-id"),
    "verified": ("verified_at", "id"),
    "-verified": ("-verified_at", "-id"),
    "expires": ("expires_at", "id"),
    "-expires": ("-expires_at", "-id"),
    "read_count": ("read_count", "id"),
    "-read_count": ("-read_count", "-id"),
}


# Sorts no index serves: a page of them sorts every match whatever the filters do.
UNINDEXED_SORTS = {"created", "-created", "read_count", "-read_count"}
WALK_AFTER = 2000


def sort_keys(sort: str) -> list[pagination.Key]:
    return [pagination.Key.parse(spec) for spec in SORTS.get(sort, INDEX_ORDER)]


def memories(filters: MemoryFilters | None = None, *, sort: str = "index", now=None) -> QuerySet:
    """Every memory the filters admit, in index order unless another sort is named."""
    queryset = Memory.objects.select_related("project")
    if filters is not None:
        queryset = filters.apply(queryset, now)
    return queryset.order_by(*(key.order() for key in sort_keys(sort)))


@dataclass
class Page:
    memories: list[Memory]
    count: int


def list_memories(
    filters: MemoryFilters, *, limit: int = 50, offset: int = 0, sort: str = "index", now=None
) -> Page:
    """A page by offset (the API's), walking the sort's index when many match, as
    page_memories does."""
    now = now or timezone.now()
    base = Memory.objects.select_related("project")
    count = filters.apply(base, now).count()
    walk = count > WALK_AFTER and sort not in UNINDEXED_SORTS
    queryset = filters.apply(base, now, walk_order=walk, sparse=not walk)
    queryset = queryset.order_by(*(key.order() for key in sort_keys(sort)))
    return Page(memories=list(queryset[offset : offset + limit]), count=count)


@dataclass
class KeysetListing:
    memories: list[Memory]
    count: int
    next_cursor: str | None
    previous_cursor: str | None
    cited_by: dict[int, int]  # memory id: how many memories reference it, from their band


def page_memories(
    filters: MemoryFilters,
    *,
    sort: str = "index",
    limit: int = 50,
    after: str | None = None,
    before: str | None = None,
    now=None,
    projects: dict[int, Project] | None = None,
) -> KeysetListing:
    """A page of the list, by keyset (`after`/`before` cursors) rather than by offset.

    The list shows no body, source or updated_at: leaving the body out keeps a sort that
    cannot walk an index (a filter on verified_at, a sort by read count) to small rows, and
    the others cost converting. `projects` (id: project) saves a query when the caller holds
    them already.
    """
    now = now or timezone.now()
    base = Memory.objects.defer("body", "source", "updated_at")
    count = filters.apply(base, now).count()
    # A filter admitting many memories reads faster by walking the sort's index than by
    # fetching every match to sort it; one admitting few, the other way round.
    walk = count > WALK_AFTER and sort not in UNINDEXED_SORTS
    page = pagination.page(
        filters.apply(base, now, walk_order=walk, sparse=not walk),
        sort_keys(sort),
        limit=limit,
        after_cursor=after,
        before_cursor=before,
    )
    attach_projects(page.rows, projects)
    return KeysetListing(
        memories=page.rows,
        count=count,
        next_cursor=page.next_cursor,
        previous_cursor=page.previous_cursor,
        cited_by=citation_counts(page.rows),
    )


def attach_projects(memories: list[Memory], projects: dict[int, Project] | None = None) -> None:
    """Give each memory its project from the few there are (id: project; fetched when not
    given) rather than joining the projects table to build a project for every row.

    A project added since `projects` was read is left to be loaded when asked for.
    """
    if projects is None:
        projects = Project.objects.in_bulk()
    field = Memory._meta.get_field("project")
    for memory in memories:
        project = projects.get(memory.project_id)
        if project is not None:
            field.set_cached_value(memory, project)


def matching_ids(filters: MemoryFilters, *, limit: int, now=None) -> list[int]:
    """The ids of the memories the filters admit, in index order, at most `limit`."""
    queryset = filters.apply(Memory.objects.all(), now).order_by(*INDEX_ORDER)
    return list(queryset.values_list("id", flat=True)[:limit])


def memories_by_id(ids) -> list[Memory]:
    """The memories of these ids that still exist, in index order."""
    return list(Memory.objects.select_related("project").filter(id__in=ids).order_by(*INDEX_ORDER))


def locate(name: str, project=ANY_TIER) -> Memory:
    """The memory a single-memory route names.

    `project` ANY_TIER finds the name in whichever tier holds it, refusing a name several
    projects hold; None is the global tier; a project name that tier (refused if unknown).
    """
    queryset = Memory.objects.select_related("project").filter(name=name)
    if project is ANY_TIER:
        found = list(queryset[:50])
        if not found:
            raise MemoryNotFound(name, anywhere=True)
        if len(found) > 1:
            raise AmbiguousName(name, sorted(m.project_name or "" for m in found))
        return found[0]
    if project is None:
        queryset = queryset.filter(tier=GLOBAL_TIER)
    else:
        # One query for the usual case; the project is looked up alone only to tell an
        # unknown project from a memory missing from a known one.
        queryset = queryset.filter(project__name=project)
    found = list(queryset[:1])
    if found:
        return found[0]
    if project is not None:
        Project.objects.named(project)
    raise MemoryNotFound(name, project)


def cites_from_band(citing_tier: int, cited_tier: int) -> bool:
    """Whether a memory of `citing_tier` naming a memory of `cited_tier` means that one.

    A project memory is cited by its own project's memories and by global ones; memories of
    another project citing the same name mean their own.
    """
    return cited_tier == GLOBAL_TIER or citing_tier in (GLOBAL_TIER, cited_tier)


def referenced_by(memory: Memory) -> list[Memory]:
    """Memories whose references name this one, as seen from their own band."""
    citing = Reference.objects.filter(target=memory.name).values("memory_id")
    queryset = Memory.objects.select_related("project").filter(id__in=citing)
    if memory.tier != GLOBAL_TIER:
        queryset = queryset.filter(tier__in=(GLOBAL_TIER, memory.tier))
    return list(queryset.exclude(id=memory.id).order_by(*INDEX_ORDER))


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


def resolve_references(memory: Memory) -> list[ResolvedReference]:
    """Each reference with the memory it names, looked up in the citing memory's band."""
    if not memory.references:
        return []
    candidates = Memory.objects.select_related("project").filter(name__in=memory.references)
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
    """References whose target no memory in any tier is named."""
    named = Memory.objects.filter(name=OuterRef("target"))
    return (
        Reference.objects.select_related("memory", "memory__project")
        .filter(~Exists(named))
        .order_by("target", "memory_id")
    )


@dataclass
class TierCount:
    project: str | None  # None: the global tier
    count: int


@dataclass
class Overview:
    total: int
    tiers: list[TierCount]
    expired: int
    unverified: int
    unverified_period: str
    dangling_references: int
    dangling_targets: list[tuple[str, int]]  # the most cited dangling targets, with counts
    dangling_target_count: int
    bands: list[Band]

    @property
    def bands_over(self) -> list[Band]:
        return [band for band in self.bands if band.over]


def overview(now=None, *, unverified: str = "90d", top: int = 10) -> Overview:
    """The figures of the dashboard's front page, each one a filter of the list."""
    now = now or timezone.now()
    cutoff = now - fields.period(unverified)
    # One count each, so that each reads an index rather than every row and its body.
    memories = Memory.objects.all()
    total = memories.count()
    tiers = [TierCount(None, memories.filter(tier=GLOBAL_TIER).count())]
    tiers += [
        TierCount(name, count)
        for name, count in Project.objects.annotate(n=Count("memories"))
        .order_by("name")
        .values_list("name", "n")
    ]
    cited = list(dangling_references().order_by().values_list("target").annotate(n=Count("id")))
    cited.sort(key=lambda row: (-row[1], row[0]))
    return Overview(
        total=total,
        tiers=tiers,
        expired=memories.filter(expires_at__lte=now).count(),
        unverified=memories.filter(verified_at__lt=cutoff).count(),
        unverified_period=unverified,
        dangling_references=sum(n for _, n in cited),
        dangling_targets=cited[:top],
        dangling_target_count=len(cited),
        bands=budget.bands(now),
    )
