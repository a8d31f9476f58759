"""The one read behind every way of finding memories: the list page, its CSV and JSON, the
bulk action's "every memory matching", /v1/memories, MCP's memory_search and the commands
`memory list` and `memory search`.

A question (the filters, the queries read as synonyms, the mode and the sort) and a page of
it go in; the page's memories (a search's hits), their count and the summary sentence come
out. A question with queries is a search (memories.reads.search), ranked; one without is a
listing (memories.reads.listing), in index order or the sort asked for. The search mode's
one default lives here.
"""

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django import forms
from django.utils import timezone

from memories.reads import listing, search, supersession
from memories.reads.filters import MemoryFilterForm, MemoryFilters
from memories.rules.errors import DomainError
from memories.rules.fields import SEARCH_MODES

DEFAULT_MODE = SEARCH_MODES[0]  # hybrid: words and meaning fused
EVERY_SEARCHED = 10_000  # the hits of a search read as every row it finds, best first
CHUNK = 500  # rows of a listing read at once when every row is read
CURSOR_MAX = 4096  # characters of a page's cursor (a row's sort key, encoded)

# Each listing order (listing.SORTS) in words: the summary's, the page's and the OpenAPI
# document's.
SORT_WORDS = {
    "index": "index order, most important first",
    "priority": "priority, most important first",
    "name": "name",
    "-name": "name, Z to A",
    "tier": "tier",
    "-priority": "priority, least important first",
    "created": "age, oldest first",
    "-created": "age, newest first",
    "verified": "verification, longest unverified first",
    "-verified": "verification, most recently verified first",
    "expires": "expiry, soonest first",
    "-expires": "expiry, latest first",
    "read_count": "read count, least read first",
    "-read_count": "read count, most read first",
}


class SortField(forms.ChoiceField):
    """`sort`: a listing's order, one of listing.SORTS; blank is index order."""

    def __init__(self, **kwargs):
        listed = ", ".join(listing.SORTS)
        super().__init__(
            required=False,
            choices=[(key, SORT_WORDS[key]) for key in listing.SORTS],
            error_messages={"invalid_choice": f"sort is one of {listed}, not ‘%(value)s’."},
            **kwargs,
        )

    def clean(self, value):
        return super().clean(value) or "index"


class FindForm(MemoryFilterForm):
    """A whole question and the page of its answer, as the list page and /v1/memories read
    them: the filters, a search, the sort, and a page at an offset or after (before) a row,
    by the cursor the previous page gave (a listing's: a search is ranked, paged by offset)."""

    sort = SortField()
    after = forms.CharField(required=False, max_length=CURSOR_MAX)
    before = forms.CharField(required=False, max_length=CURSOR_MAX)

    def clean(self):
        cleaned = super().clean()
        cursor = cleaned.get("after") or cleaned.get("before")
        if cleaned.get("after") and cleaned.get("before"):
            raise forms.ValidationError("A page starts after one row or ends before one, not both.")
        if cursor and cleaned.get("q"):
            raise forms.ValidationError("A search pages by offset, not by a row's position.")
        if cursor and cleaned.get("offset"):
            raise forms.ValidationError(
                "A page starts at an offset or after (before) a row, not both."
            )
        return cleaned


@dataclass(frozen=True)
class Question:
    filters: MemoryFilters
    queries: tuple[str, ...] = ()
    mode: str = DEFAULT_MODE
    sort: str = "index"  # a listing's order (listing.SORTS); a search is ranked

    @classmethod
    def of(cls, form) -> "Question":
        """The question a valid filter form (MemoryFilterForm or a form extending it) asks."""
        data = form.cleaned_data
        return cls(
            filters=form.filters(),
            queries=tuple(data.get("q") or ()),
            mode=data.get("mode") or DEFAULT_MODE,
            sort=data.get("sort") or "index",
        )

    @property
    def searched(self) -> bool:
        return bool(self.queries)


@dataclass(frozen=True)
class Page:
    """Which rows of the answer are read, and as what.

    `limit` None reads every row (a search's best EVERY_SEARCHED), streamed. `keyset` pages a
    listing by its rows' keys (`after`/`before` cursors, the list page's, or an `offset`, its
    numbered pages') and counts up to listing.PAGE_COUNT_BOUND; otherwise a listing pages by
    `offset` and counts exactly.
    `rows`: "memories" (Memory objects), "dicts" (the /v1 list form) or "ids" (index order
    for a listing).
    """

    limit: int | None = 50
    offset: int = 0
    after: str | None = None
    before: str | None = None
    keyset: bool = False
    rows: str = "memories"


EVERY = Page(limit=None)


@dataclass
class Found:
    question: Question
    count: int
    memories: Iterable = ()  # Memory objects, dicts or ids, as the page asked (a search: hits')
    hits: list[search.Hit] | None = None  # a search's, in rank order
    more: bool = False  # the count stopped at a bound: there are more
    last_resort: bool = False  # a search answered by the whole-query scan
    capped: bool = False  # a search's text scan stopped at its limit: count is a lower bound
    start: int | None = None  # a keyset page's rows before its first, where counted
    next_cursor: str | None = None
    previous_cursor: str | None = None
    cited_by: dict[int, int] | None = None  # the keyset listing's citations per memory
    now: dt.datetime = field(default_factory=timezone.now)
    rows: str = "memories"  # what `memories` holds, as the page asked (Page.rows)

    @property
    def summary(self) -> str:
        """What was found, in one sentence: the count, the queries, the filters, the order."""
        filters, queries = self.question.filters, self.question.queries
        if not queries:
            sort = self.question.sort
            text = filters.summary(self.count, searched=sort != "index", more=self.more)
            return text + (f", sorted by {SORT_WORDS[sort]}" if sort != "index" else "")
        noun = "memory" if self.count == 1 else "memories"
        quoted = " or ".join(f"‘{query}’" for query in queries)
        counted = f"{'at least ' if self.capped else ''}{self.count} {noun} matching {quoted}"
        return ", ".join([counted, *filters.labels()]) + ", best first"

    @property
    def notes(self) -> list[str]:
        """What the summary's reader should know of how a search answered."""
        notes = []
        if self.last_resort:
            notes.append("Nothing matched as words; the whole query was scanned as text.")
        if self.capped:
            notes.append("A text scan stopped at its limit: there may be more.")
        return notes

    def with_hits(self) -> list[tuple]:
        """Each memory of the page with its search hit (None for a listing's)."""
        hits = self.hits if self.hits is not None else [None] * len(self.memories)
        return list(zip(self.memories, hits, strict=True))

    def dicts(self) -> Iterator[dict]:
        """The rows in the /v1 list form (a search's with its score and sense)."""
        if self.hits is not None:
            return (hit.to_dict(self.now) for hit in self.hits)
        if self.rows == "dicts":
            return iter(self.memories)
        return (memory.to_dict(self.now) for memory in self.memories)


def find(question: Question, page: Page = Page(), *, now=None, projects=None) -> Found:
    """The page of the memories the question finds, their count and its summary.

    `projects` (id: project), when the caller holds them, saves a listing reading them.
    """
    now = now or timezone.now()
    if question.searched:
        return _searched(question, page, now)
    return _listed(question, page, now, projects)


def _searched(question: Question, page: Page, now) -> Found:
    limit = EVERY_SEARCHED if page.limit is None else page.limit
    result = search.search(
        list(question.queries),
        question.filters,
        limit=limit,
        offset=page.offset,
        now=now,
        mode=question.mode,
    )
    hits = supersession.below_successors(result.hits)
    rows = [hit.memory.id for hit in hits] if page.rows == "ids" else [h.memory for h in hits]
    return Found(
        question,
        count=result.count,
        memories=rows,
        hits=hits,
        last_resort=result.last_resort,
        capped=result.capped,
        now=now,
        rows=page.rows,
    )


def _listed(question: Question, page: Page, now, projects) -> Found:
    filters, sort = question.filters, question.sort
    if page.limit is None:
        rows = listing.memories(filters, sort=sort, now=now).defer("body")
        return Found(question, rows.count(), rows.iterator(chunk_size=CHUNK), now=now)
    if page.rows == "ids":
        ids = listing.matching_ids(filters, limit=page.limit, now=now)
        count = len(ids) if len(ids) < page.limit else listing.memories(filters, now=now).count()
        return Found(question, count, ids, now=now, rows="ids")
    if page.keyset:
        keyed = listing.page_memories(
            filters,
            sort=sort,
            limit=page.limit,
            after=page.after,
            before=page.before,
            offset=page.offset,
            now=now,
            projects=projects,
        )
        return Found(
            question,
            keyed.count,
            keyed.memories,
            more=keyed.more,
            next_cursor=keyed.next_cursor,
            previous_cursor=keyed.previous_cursor,
            cited_by=keyed.cited_by,
            start=keyed.start,
            now=now,
        )
    if page.rows == "dicts":
        dicts = listing.list_dicts(
            filters,
            limit=page.limit,
            offset=page.offset,
            sort=sort,
            after=page.after,
            before=page.before,
            now=now,
        )
        return Found(
            question,
            dicts.count,
            dicts.memories,
            next_cursor=dicts.next_cursor,
            previous_cursor=dicts.previous_cursor,
            now=now,
            rows="dicts",
        )
    listed = listing.list_memories(
        filters, limit=page.limit, offset=page.offset, sort=sort, now=now
    )
    return Found(question, listed.count, listed.memories, more=listed.more, now=now)


def every_id(question: Question, *, limit: int) -> list[int]:
    """The ids of every memory the question finds, across its pages (a search's hits), as a
    bulk action's "every memory matching" takes them; more than `limit` (what a bulk action
    takes) is refused."""
    found = find(question, Page(limit=limit + 1, rows="ids"))
    if found.count > limit:
        raise DomainError(
            f"{found.count:,} memories match; a bulk action takes at most {limit:,} "
            "at a time: narrow the filters or the search."
        )
    return found.memories
