"""What the agent of a tier is given: the inline band and the index, as exact text.

A session on a project sees the global tier and the project's, grouped global first under
one budget; a session on no project sees the global tier alone.
"""

import datetime as dt
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from django.conf import settings
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from memories import engine
from memories.models import GLOBAL_TIER, Tag, memory_view_url
from memories.reads import tallies
from memories.reads.filters import DENSE
from memories.reads.rows import db_time
from memories.rules import budget
from memories.rules.captions import short_age
from projects.models import Project

SEARCH_POINTER = "use `memory_search` to find them"
# The index candidates first read of each tier: 8 KiB of index lines is about 90 of them,
# far fewer than the 200 entries allowed, and the report reads a band's worth for each band.
FIRST_READ = 96


@dataclass(slots=True, eq=False)
class Entry:
    """A memory as the inline band and the index show it, read as a plain row: a view reads
    hundreds a tier, and the budget report a view of every band, where model objects cost
    several times the statements (bench/results/2026-12-04-figures-from-comments)."""

    id: int
    name: str
    project_id: int | None
    project_name: str | None
    priority: int
    created_at: dt.datetime
    description: str
    body: str
    body_bytes: int
    # Its place in index order (priority, newest first, then the higher id): a band merges
    # its tiers' rows by it, and the budget report every band's.
    order: tuple = ()

    def __post_init__(self):
        self.order = (self.priority, -self.created_at.timestamp(), -self.id)

    @classmethod
    def stored(cls, id_, name, project_id, names: dict, priority, created, description, body):
        """An entry from a statement's columns (`names`: the projects' names by id)."""
        return cls(
            id=id_,
            name=name,
            project_id=project_id,
            project_name=names.get(project_id) if project_id else None,
            priority=priority,
            created_at=stored_moment(created),
            description=description,
            body=body,
            body_bytes=len(body.encode("utf-8")) if body else 0,
        )

    def get_absolute_url(self) -> str:
        return memory_view_url("memories:detail", self.name, self.project_name)


@dataclass
class Listing:
    """Descriptions held to the index's ceilings, with what could not be listed."""

    lines: list[tuple[Entry, str]] = field(default_factory=list)
    bytes: int = 0
    left_out: int = 0
    # The most common tags of the memories the listing was drawn from but for those listed
    # (their ids): counted only when asked for, since the budget report, which builds a view
    # of every band, never shows them.
    tags_beside: Callable[[list[int]], list[tuple[str, int]]] | None = None

    @cached_property
    def left_out_tags(self) -> list[tuple[str, int]]:
        """The three most common tags of the memories left out, with their counts."""
        if not self.left_out or self.tags_beside is None:
            return []
        return self.tags_beside([memory.id for memory, _ in self.lines])

    def footer(self) -> str:
        if not self.left_out:
            return ""
        noun = "memory" if self.left_out == 1 else "memories"
        text = f"{self.left_out} more {noun} not shown here"
        if self.left_out_tags:
            tags = ", ".join(f"{tag} ({count})" for tag, count in self.left_out_tags)
            text += f", most common tags {tags}"
        return text + f"; {SEARCH_POINTER}."


@dataclass
class AgentView:
    tier: int
    project: str | None
    budget_bytes: int
    inline_total: int
    inline_shown: list[Entry]
    inline_unshown: Listing
    index: Listing
    search_only: int
    expired: int
    # Every inline body in force in index order, as (memory, bytes spent before it, shown):
    # the cut line of the band, and why each body beyond it is not given in full.
    inline_walk: list[tuple[Entry, int, bool]] = field(default_factory=list)

    @property
    def over_budget(self) -> bool:
        return self.inline_total > self.budget_bytes

    @property
    def inline_shown_bytes(self) -> int:
        return sum(m.body_bytes for m in self.inline_shown)

    def text(self) -> str:
        return render(self)


def index_line(memory: Entry, now: dt.datetime, zone: dt.tzinfo | None = None) -> str:
    return (
        f"- {memory.name} (priority {memory.priority}, "
        f"{short_age(memory.created_at, now, zone)}): "
        f"{memory.description}"
    )


def _sized_line(memory: Entry, now: dt.datetime, zone: dt.tzinfo | None = None) -> tuple:
    """The memory's index line and the bytes it takes in the index, its newline counted."""
    text = index_line(memory, now, zone)
    return text, len(text.encode("utf-8")) + 1


def _held_to_ceilings(rows: list[Entry], total: int, now, tags_beside, sized=None) -> Listing:
    """List rows by description within 8 KiB and 200 entries, counting the rest.

    `sized` (memory: its index line and its bytes) may hand back lines written for another
    band."""
    listing = Listing(tags_beside=tags_beside)
    max_bytes = settings.MEMADMIN_INDEX_MAX_BYTES
    max_entries = settings.MEMADMIN_INDEX_MAX_ENTRIES
    for memory in rows:
        line_text, size = sized(memory) if sized else _sized_line(memory, now)
        if len(listing.lines) >= max_entries or listing.bytes + size > max_bytes:
            break
        listing.lines.append((memory, line_text))
        listing.bytes += size
    listing.left_out = total - len(listing.lines)
    return listing


def _tags_among(memories: list[Entry]):
    """The most common tags of `memories` but for those listed (a few: the unshown inline)."""

    def tags_beside(listed: list[int]) -> list[tuple[str, int]]:
        counts = (
            Tag.objects.filter(memory_id__in=[m.id for m in memories])
            .exclude(memory_id__in=listed)
            .values("tag")
            .annotate(n=Count("id"))
            .order_by("-n", "tag")[:3]
        )
        return [(row["tag"], row["n"]) for row in counts]

    return tags_beside


def stored_moment(text: str) -> dt.datetime:
    """A stored moment read as text, made aware: SQLite's is UTC without a zone, PostgreSQL's
    carries its offset (past the seconds: a sign, where the date's are dashes). Parsing a zone
    written on costs a third of replacing it after (a thousand rows a budget report)."""
    zoned = "+" in text[19:] or "-" in text[19:]
    return dt.datetime.fromisoformat(text if zoned else text + "+00:00")


INDEX_ORDER = operator.attrgetter("order")


class TierReads:
    """What a view reads of each tier at one moment, read once however many bands hold it.

    A band is the global tier and a project's, so the budget report, which builds the view of
    every band, would otherwise read the global tier once a band. Each tier's rows come in
    index order off one range of the band index (memory_band); `tier IN (...)` instead reads
    every row of the tiers and sorts them, a hundred times slower
    (bench/results/2026-12-04-figures-from-comments).
    """

    def __init__(self, now: dt.datetime):
        self.now = now
        self._zone = timezone.get_current_timezone()
        self._read: dict[tuple, object] = {}
        self._lines: dict[int, tuple[str, int]] = {}
        self._expected: list[int] = []  # tiers to read with the first read of any

    def sized_line(self, entry: Entry) -> tuple[str, int]:
        """The memory's index line and its bytes, written once for every band holding it."""
        if entry.id not in self._lines:
            self._lines[entry.id] = _sized_line(entry, self.now, self._zone)
        return self._lines[entry.id]

    def know_projects(self, projects) -> None:
        """The projects, held by the caller already: their names are not read again."""
        self._read.setdefault(("projects",), {project.id: project.name for project in projects})

    def expect_every_tier(self) -> None:
        """Every tier will be read (the budget report): the first read of any tier's rows, or
        of its tallies, takes every tier's with it, as one statement each, where reading a
        band first and the rest after cost a round trip more of each on PostgreSQL."""
        self._expected = [GLOBAL_TIER, *self._once(("projects",), self._project_names)]

    def _project_names(self) -> dict[int, str]:
        return dict(Project.objects.values_list("id", "name"))

    def _with_expected(self, tiers) -> list[int]:
        return [*tiers, *(tier for tier in self._expected if tier not in tiers)]

    def _once(self, key: tuple, read):
        if key not in self._read:
            self._read[key] = read()
        return self._read[key]

    def index_tags_beside(self, tiers) -> Callable[[list[int]], list[tuple[str, int]]]:
        """The most common tags of the band's index memories in force but for those listed."""
        return functools.partial(tallies.left_out_tags, tiers, "index", self.now)

    def tags_among(self, memories: list[Entry]) -> Callable[[list[int]], list[tuple[str, int]]]:
        """The most common tags of `memories` (a few: the unshown inline) but for those listed."""
        return _tags_among(memories)

    def _read_arms(self, arms: list[tuple[int, str, int | None]]) -> dict[tuple, list[Entry]]:
        """For each (tier, load, limit), the tier's memories of `load` in force in index order
        (inline: those with a body), `limit` at most: one statement for every arm, since on
        PostgreSQL each statement's round trip costs more than what a tier's arm reads.

        The arms read whole (no limit: the inline bodies) are one select for every tier: each
        select of a union is planned apart, and PostgreSQL spent longer planning the budget
        report's eighteen than running them (bench/results/2026-12-01-budget-5)."""
        names = self._once(("projects",), self._project_names)
        statements = engine.of(connection).statements
        in_force = statements.likelihood("(expires_at IS NULL OR expires_at > %s)", DENSE)
        # Through the band index for a list of tiers too: left to choose, SQLite reads the
        # tiers' ranges of the expiry index, every memory of theirs that expires.
        expires_at = statements.unindexed("expires_at")
        in_force_listed = f"({expires_at} IS NULL OR {expires_at} > %s)"
        moment = db_time(self.now)
        # The moment as text, parsed by stored_moment: Django's loader of PostgreSQL's timestamps
        # cost a row many times what fromisoformat does (bench/results/2026-12-01-budget-5).
        # Named apart: PostgreSQL names the cast `created_at`, and an ORDER BY then sorted the
        # text, each tier's whole priorities, not read in the band index's order
        # (bench/results/2026-12-04-figures-from-comments).
        columns = (
            "tier, load, id, name, project_id, priority, CAST(created_at AS TEXT) AS created, "
            "description"
        )

        def body(load: str) -> str:
            return "body" if load == "inline" else "''"

        def with_body(load: str) -> str:
            return " AND body != ''" if load == "inline" else ""

        whole: dict[str, list[int]] = {}
        selects, params = [], []
        for number, (tier, load, limit) in enumerate(arms):
            if limit is None:
                whole.setdefault(load, []).append(tier)
                continue
            selects.append(
                f"SELECT * FROM (SELECT {columns}, {body(load)} AS body FROM memories_memory "
                f"WHERE tier = %s AND load = %s AND {in_force}{with_body(load)} "
                f"ORDER BY priority, created_at DESC, id DESC LIMIT %s) AS arm{number}"
            )
            params += [tier, load, moment, limit]
        for load, tiers in whole.items():
            selects.append(
                f"SELECT {columns}, {body(load)} AS body FROM memories_memory "
                f"WHERE load = %s AND tier IN ({', '.join(['%s'] * len(tiers))}) "
                f"AND {in_force_listed}{with_body(load)}"
            )
            params += [load, *tiers, moment]
        found: dict[tuple, list[Entry]] = {(tier, load): [] for tier, load, _ in arms}
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(selects), params)
            rows = cursor.fetchall()
        for tier, load, id_, name, project_id, priority, created, description, body in rows:
            found[(tier, load)].append(
                Entry.stored(id_, name, project_id, names, priority, created, description, body)
            )
        for entries in found.values():
            entries.sort(key=INDEX_ORDER)  # a union keeps no order of its own
        return found

    def read_tiers(self, tiers, index_limit: int = FIRST_READ) -> None:
        """The inline bodies and the first `index_limit` index candidates of each tier not read
        yet, in one statement (a view reads its band's tiers; the budget report, every tier),
        with those of the tiers expected (FIRST_READ of theirs)."""
        read = self._read
        if all(("inline", tier) in read and ("index", tier) in read for tier in tiers):
            return  # the tiers expected were read with the first of them
        every = self._with_expected(tiers)
        arms = [(tier, "inline", None) for tier in every if ("inline", tier) not in self._read]
        arms += [
            (tier, "index", index_limit if tier in tiers else FIRST_READ)
            for tier in every
            if ("index", tier) not in self._read
        ]
        if not arms:
            return
        limits = {(tier, load): limit for tier, load, limit in arms}
        for (tier, load), entries in self._read_arms(arms).items():
            read = entries if load == "inline" else (limits[(tier, load)], entries)
            self._read[(load, tier)] = read

    def inline(self, tier: int) -> list[Entry]:
        """The tier's inline bodies in force, in index order."""
        self.read_tiers([tier])
        return self._read[("inline", tier)]

    def index_candidates(self, tier: int, limit: int) -> list[Entry]:
        """The first `limit` memories the tier offers the index, in index order (a band's
        index reads about 90; 200 at most, and the budget page's list of what falls off, 50
        more)."""
        self.read_tiers([tier])
        read, entries = self._read[("index", tier)]
        if read < limit and len(entries) == read:  # not every candidate was read
            entries = self._read_arms([(tier, "index", limit)])[(tier, "index")]
            self._read[("index", tier)] = (limit, entries)
        return entries[:limit]

    def band_index_candidates(self, project, limit: int) -> list[Entry]:
        """The first `limit` memories the index of `project`'s band would list, in index
        order, its ceilings aside."""
        return sorted(
            (m for tier in band_tiers(project) for m in self.index_candidates(tier, limit)),
            key=INDEX_ORDER,
        )[:limit]

    def read_tallies(self, tiers) -> None:
        """The tallies of each tier not read yet, and of the tiers expected, at once."""
        if all(("tally", tier) in self._read for tier in tiers):
            return
        missing = [t for t in self._with_expected(tiers) if ("tally", t) not in self._read]
        if missing:
            for tier, tally in tallies.tier_tallies(missing, self.now).items():
                self._read[("tally", tier)] = tally

    def count(self, tier: int, what: str) -> int:
        """How many of the tier's memories are listable in the index, search-only or expired."""
        self.read_tallies([tier])
        tally = self._read[("tally", tier)]
        if what == "expired":
            return tally.expired_total
        return tally.in_force({"listable": "index", "search_only": "search"}[what])


def band_tiers(project) -> tuple[int, ...]:
    """The tiers a session on `project` (a Project, or None for no project) is given."""
    return (GLOBAL_TIER,) if project is None else (GLOBAL_TIER, project.id)


def agent_view(
    project=None, now: dt.datetime | None = None, *, reads: TierReads | None = None
) -> AgentView:
    """The [Memory] section for a session on `project` (a Project, or None for no project).

    `reads` shares what is read of each tier between the views of several bands.
    """
    now = now or timezone.now()
    reads = reads or TierReads(now)
    tiers = band_tiers(project)
    reads.read_tiers(tiers)
    reads.read_tallies(tiers)

    inline = sorted((m for tier in tiers for m in reads.inline(tier)), key=INDEX_ORDER)
    budget_limit = budget.budget_bytes()
    shown, unshown, walk, spent = [], [], [], 0
    for memory in inline:
        fits = spent + memory.body_bytes <= budget_limit
        walk.append((memory, spent, fits))
        if fits:
            shown.append(memory)
            spent += memory.body_bytes
        else:
            unshown.append(memory)
    inline_total = sum(m.body_bytes for m in inline)
    unshown_listing = _held_to_ceilings(unshown, len(unshown), now, reads.tags_among(unshown))

    listable = sum(reads.count(tier, "listable") for tier in tiers)
    cap = settings.MEMADMIN_INDEX_MAX_ENTRIES + 1
    wanted = min(FIRST_READ, cap)
    while True:
        candidates = reads.band_index_candidates(project, wanted)
        index = _held_to_ceilings(
            candidates,
            listable,
            now,
            reads.index_tags_beside(tiers),
            reads.sized_line,
        )
        # A ceiling stopped the listing, or every candidate was read: more would list no more.
        if len(index.lines) < len(candidates) or len(candidates) < wanted or wanted == cap:
            break
        wanted = cap
    # Grouped for reading, global first; which entries survive was decided in index order.
    index.lines.sort(key=lambda pair: pair[0].project_id is not None)

    return AgentView(
        tier=tiers[-1],
        project=project.name if project else None,
        budget_bytes=budget_limit,
        inline_total=inline_total,
        inline_shown=shown,
        inline_unshown=unshown_listing,
        index=index,
        search_only=sum(reads.count(tier, "search_only") for tier in tiers),
        expired=sum(reads.count(tier, "expired") for tier in tiers),
        inline_walk=walk,
    )


def render(view: AgentView) -> str:
    lines = ["[Memory]"]
    heading = "global tier" if view.project is None else f"project {view.project}"
    lines.append(f"Memories of the {heading}" + ("" if view.project is None else " and global"))
    lines.append("")
    lines.append(
        f"Inline rules ({budget.kib(view.inline_shown_bytes)} of the "
        f"{budget.kib(view.budget_bytes)} inline budget):"
    )
    for memory in view.inline_shown:
        tier = "" if view.project is None or memory.project_id else " (global)"
        lines.append(f"## {memory.name}{tier}")
        lines.append(memory.body)
        lines.append("")
    if view.inline_unshown.lines or view.inline_unshown.left_out:
        lines.append(
            f"Inline memories total {budget.kib(view.inline_total)} against the "
            f"{budget.kib(view.budget_bytes)} inline budget, so these are not shown: read one "
            "with `memory_read` before relying on it, and shorten them or change their load."
        )
        lines.extend(line for _, line in view.inline_unshown.lines)
        if view.inline_unshown.footer():
            lines.append(view.inline_unshown.footer())
        lines.append("")
    lines.append("Index:")
    current_group = None
    for memory, line in view.index.lines:
        group = "Global" if memory.project_id is None else f"Project {memory.project_name}"
        if view.project is not None and group != current_group:
            lines.append(f"{group}:")
            current_group = group
        lines.append(line)
    if view.index.footer():
        lines.append(view.index.footer())
    nowhere = []
    if view.search_only:
        nowhere.append(f"{view.search_only} search-only")
    if view.expired:
        nowhere.append(f"{view.expired} expired")
    if nowhere:
        noun = "memory" if view.search_only + view.expired == 1 else "memories"
        lines.append(
            f"Listed nowhere here: {' and '.join(nowhere)} {noun}; `memory_search` reaches them."
        )
    return "\n".join(lines).rstrip() + "\n"
