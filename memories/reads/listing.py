"""Listing memories in index order (or a sort), filtered, in keyset pages; the ids a
bulk action or a filter selects.

The reads below that apply the filters start from `Memory.every`: the filters narrow to the
caller's reach (band_tiers), and the reached manager would say it twice, a second condition
built and compiled on every call and tested on every row.
"""

from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils import timezone

from memories.models import INDEX_ORDER, LIST_FIELDS, Memory, list_dict
from memories.reads import pagination, tallies
from memories.reads.backlinks import citation_counts
from memories.reads.filters import MemoryFilters
from projects.models import Project

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
# The list page counts a filter's rows up to where it starts walking the sort's index, and
# says "more than" past it: a filter the tallies do not keep (unverified, referencing, tag)
# would otherwise count every match, growing with the store (bench/results/2026-12-01-pages;
# bench/results/2026-12-04-figures-from-comments). /v1 counts them all: its `count` is exact.
PAGE_COUNT_BOUND = WALK_AFTER


def sort_keys(sort: str) -> list[pagination.Key]:
    return [pagination.Key.parse(spec) for spec in SORTS.get(sort, INDEX_ORDER)]


def memories(filters: MemoryFilters | None = None, *, sort: str = "index", now=None) -> QuerySet:
    """Every memory the filters admit, in index order unless another sort is named."""
    queryset = Memory.objects.select_related("project")
    if filters is not None:
        queryset = filters.apply(queryset, now)
    return queryset.order_by(*(key.order() for key in sort_keys(sort)))


def _count(filters: MemoryFilters, base: QuerySet, now, bound: int | None) -> tuple[int, bool]:
    """The tallies' count when they can tell it (a filter they keep), else the rows' (up to
    `bound`, when given); and whether there are more than that."""
    counted = tallies.count(filters, now)
    if counted is not None:
        return counted, False
    if bound is None:
        return filters.apply(base, now).count(), False
    return filters.count_bounded(base, now, bound)


@dataclass
class Page:
    memories: list[Memory]
    count: int
    more: bool = False  # the count stopped at the bound asked for


def _filtered(filters: MemoryFilters, base: QuerySet, *, sort, now, bound=None):
    """The filtered queryset, unordered, the count and whether it stopped at `bound`,
    walking the sort's index when many match, as page_memories does."""
    count, more = _count(filters, base, now, bound)
    walk = (more or count > WALK_AFTER) and sort not in UNINDEXED_SORTS
    return filters.apply(base, now, walk_order=walk, sparse=not walk), count, more


def list_memories(
    filters: MemoryFilters,
    *,
    limit: int = 50,
    offset: int = 0,
    sort: str = "index",
    now=None,
    bound: int | None = None,
) -> Page:
    """A page by offset; its count exact, or up to `bound` when the tallies do not keep the
    filters."""
    now = now or timezone.now()
    queryset, count, more = _filtered(
        filters, Memory.every.select_related("project"), sort=sort, now=now, bound=bound
    )
    queryset = queryset.order_by(*(key.order() for key in sort_keys(sort)))
    return Page(memories=list(queryset[offset : offset + limit]), count=count, more=more)


@dataclass
class DictPage:
    memories: list[dict]  # each in its list form (Memory.to_dict)
    count: int
    next_cursor: str | None = None
    previous_cursor: str | None = None


def list_dicts(
    filters: MemoryFilters,
    *,
    limit: int = 50,
    offset: int = 0,
    sort: str = "index",
    after: str | None = None,
    before: str | None = None,
    now=None,
) -> DictPage:
    """A page of /v1's list, read as plain rows in its list form: at an offset, or after or
    before a row (the cursors the page gives, as the list page's keyset pages); its count
    exact."""
    now = now or timezone.now()
    queryset, count, _ = _filtered(filters, Memory.every.all(), sort=sort, now=now)
    keys = sort_keys(sort)
    page = pagination.page(
        queryset,
        keys,
        limit=limit,
        offset=offset,
        after_cursor=after,
        before_cursor=before,
        fields=(*LIST_FIELDS, *(key.field for key in keys if key.field not in LIST_FIELDS)),
    )
    rows = [row[: len(LIST_FIELDS)] for row in page.rows]
    # The rows are within the reach already: their projects' names need no narrowing.
    names = Project.every.names_by_id() if any(row[1] for row in rows) else {}
    return DictPage(
        [list_dict(row, names.get(row[1]), now) for row in rows],
        count,
        page.next_cursor,
        page.previous_cursor,
    )


@dataclass
class KeysetListing:
    memories: list[Memory]
    count: int  # at most PAGE_COUNT_BOUND; `more`: there are more than that
    next_cursor: str | None
    previous_cursor: str | None
    cited_by: dict[int, int]  # memory id: how many memories reference it, from their band
    more: bool = False
    start: int | None = None  # how many rows come before the page's first; None: not counted


def page_memories(
    filters: MemoryFilters,
    *,
    sort: str = "index",
    limit: int = 50,
    after: str | None = None,
    before: str | None = None,
    offset: int = 0,
    now=None,
    projects: dict[int, Project] | None = None,
) -> KeysetListing:
    """A page of the list, by keyset (`after`/`before` cursors) rather than by offset; or at
    an offset (a numbered page's link), which gives its cursors all the same.

    Where the count is known (up to PAGE_COUNT_BOUND), so is where the page starts: the rows
    before a cursor's page are counted as the whole is, up to the same bound.

    The list shows no body, source or updated_at: leaving the body out keeps a sort that
    cannot walk an index (a filter on verified_at, a sort by read count) to small rows, and
    the others cost converting. `projects` (id: project) saves a query when the caller holds
    them already.
    """
    now = now or timezone.now()
    base = Memory.every.defer("body", "source", "updated_at")
    count = tallies.count(filters, now)
    if count is None and tallies.more_tagged_than(filters, PAGE_COUNT_BOUND):
        count = PAGE_COUNT_BOUND + 1
    if count is None:
        count = filters.count_up_to(base, now, PAGE_COUNT_BOUND)
    more = count > PAGE_COUNT_BOUND
    count = min(count, PAGE_COUNT_BOUND) if more else count
    # A filter admitting many memories reads faster by walking the sort's index than by
    # fetching every match to sort it; one admitting few, the other way round.
    walk = (more or count > WALK_AFTER) and sort not in UNINDEXED_SORTS
    page = pagination.page(
        filters.apply(base, now, walk_order=walk, sparse=not walk),
        sort_keys(sort),
        limit=limit,
        after_cursor=after,
        before_cursor=before,
        offset=offset,
    )
    start = None
    if not (after or before):
        start = offset
    elif not more and page.rows:
        keys = [key.reversed() for key in sort_keys(sort)]
        first = [getattr(page.rows[0], key.field) for key in keys]
        start = filters.count_up_to(
            base.filter(pagination.after(keys, first)), now, PAGE_COUNT_BOUND
        )
    attach_projects(page.rows, projects)
    return KeysetListing(
        memories=page.rows,
        count=count,
        next_cursor=page.next_cursor,
        previous_cursor=page.previous_cursor,
        cited_by=citation_counts(page.rows),
        more=more,
        start=start,
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
    queryset = filters.apply(Memory.every.all(), now).order_by(*INDEX_ORDER)
    return list(queryset.values_list("id", flat=True)[:limit])
