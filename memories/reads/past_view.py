"""The agent view as it stood at a past moment, rebuilt from the revisions.

The store as it stood at a moment is the store as it stands with every change since taken
back: a memory changed since stood as the first revision after the moment found it (its
`before`: none for a memory created or restored since), every other memory stood as it stands.
So the rebuild reads what the live view reads, less the memories changed since
(TierReads.rows_kept), and adds those memories' recorded states, classed at the moment by the
same rules; agent_view then decides and render writes the text, as for the live view. Its cost
follows the view and the changes since the moment, not the history.

A recorded state is read off its snapshot by the keys that class and order it (STATE_KEYS),
and whole for the memories the view shows; the diff reads a memory's state whole into a
Memory (recorded_memory), whatever fields the model holds. Projects are named as they were
then (their renames, additions and removals are recorded apart). An expiry passing is no
revision: a state is in force or not by the moment asked about. What pruning removed
(`history prune`) cannot be taken back, so a moment before the oldest revision kept is not
answered (answers_from).
"""

import datetime as dt
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import connection
from django.utils import timezone

from memories import engine
from memories.engine.tables import MEMORY_TABLE
from memories.models import (
    GLOBAL_TIER,
    Action,
    Memory,
    ProjectAction,
    ProjectRevision,
    Revision,
    Tag,
    TrashedMemory,
)
from memories.reads import tallies
from memories.reads.agent_view import (
    INDEX_ORDER,
    AgentView,
    Entry,
    TierReads,
    agent_view,
    band_tiers,
    stored_moment,
)
from memories.reads.rows import db_time
from memories.rules.errors import NotRecorded
from memories.rules.fields import rfc3339
from projects.models import Project

REVISIONS = Revision._meta.db_table
TRASH = TrashedMemory._meta.db_table
# Changes after which a memory was there before them: a purged memory's first revision
# after the moment, if one of these, hid a state the purge erased.
_FOUND_IT = {Action.UPDATE, Action.MOVE, Action.EDIT, Action.DELETE, Action.REVERT}
_FIELDS = {f.attname: f for f in Memory._meta.concrete_fields}


def answers_from() -> dt.datetime:
    """The earliest moment the revisions answer for: the oldest revision kept but for the
    deletions the trash holds (pruning keeps those, whatever their age); with none kept, now."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT CAST(MIN(r.at) AS TEXT) FROM {REVISIONS} r WHERE NOT EXISTS "
            f"(SELECT 1 FROM {TRASH} t WHERE t.revision_id = r.id)"
        )
        (oldest,) = cursor.fetchone()
    return timezone.now() if oldest is None else stored_moment(oldest)


def refuse_unrecorded(moment: dt.datetime, start: dt.datetime, field_name: str) -> None:
    if moment < start:
        raise NotRecorded(
            f"The history kept begins at {rfc3339(start)} (older revisions were pruned or "
            f"never made), so {field_name} must be that moment or later.",
            field=field_name,
        )


def project_names_at(moment: dt.datetime) -> dict[int, str]:
    """The projects there were at `moment`, by id, with the names they had then: the first
    change to each since says it (added since: not there; renamed: its previous name; removed:
    its name), else it stands as it is."""
    names = dict(Project.objects.values_list("id", "name"))
    seen: set[int] = set()
    changes = ProjectRevision.objects.filter(at__gt=moment).order_by("id")
    for project_id, action, name, previous in changes.values_list(
        "project_id", "action", "name", "previous_name"
    ):
        if project_id in seen:
            continue
        seen.add(project_id)
        if action == ProjectAction.ADD:
            names.pop(project_id, None)
        elif action == ProjectAction.RENAME:
            names[project_id] = previous
        else:
            names[project_id] = name
    return names


def project_at(name: str | None, moment: dt.datetime, names: dict[int, str]) -> int | None:
    """The id of the project a session named `name` was on at `moment`: the one of that name
    then, else the one of that name now (renamed since); None: no project."""
    if name is None:
        return None
    for project_id, then in names.items():
        if then == name:
            return project_id
    return Project.objects.named(name).id


def recorded_memory(state: dict) -> Memory:
    """A revision's snapshot as a Memory (unsaved): every key naming a stored field."""
    return Memory(
        **{key: _FIELDS[key].to_python(value) for key, value in state.items() if key in _FIELDS}
    )


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _class(load: str, expires_at: dt.datetime | None, moment: dt.datetime) -> str:
    """What a memory counts as in a view at `moment`: its load when in force, else expired.
    The same rule as the live view's statements and tallies (agent_view, tallies)."""
    if expires_at is not None and expires_at <= moment:
        return "expired"
    return load


def _moment_of(value: str | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromisoformat(value)


def state_class(state: dict, moment: dt.datetime) -> str:
    """What a recorded state counts as at `moment` (_class), read off the snapshot."""
    return _class(state["load"], _moment_of(state["expires_at"]), moment)


def _entry(state: dict, names: dict[int, str]) -> Entry:
    """A recorded state as the live view reads a row (memories.reads.agent_view.TierReads)."""
    project_id = state["project_id"]
    body = state["body"]
    return Entry(
        id=state["id"],
        name=state["name"],
        project_id=project_id,
        project_name=names.get(project_id) if project_id else None,
        priority=state["priority"],
        created_at=_moment_of(state["created_at"]),
        description=state["description"],
        body=body if state["load"] == "inline" else "",  # an index entry's body is never shown
        body_bytes=len(body.encode("utf-8")),
    )


# What classes a recorded state (state_class) and places it in index order: read off each
# snapshot by the database, the whole snapshot only for those a view shows, since a week's
# changes are thousands of states and decoding each whole cost most of a rebuild
# (bench/results/2026-12-05-asof). A field the rule of state_class comes to read joins them.
STATE_KEYS = ("id", "project_id", "load", "expires_at", "priority", "created_at", "tags")


@dataclass(slots=True)
class Recorded:
    """A memory's state at the moment, as its first revision after recorded it: its keys."""

    revision_id: int
    state: dict  # STATE_KEYS, and the whole snapshot once read (ChangedSince.entries)
    order: tuple = ()

    def __post_init__(self):
        created = _moment_of(self.state["created_at"])
        self.order = (self.state["priority"], -created.timestamp(), -self.state["id"])


@dataclass
class ChangedSince:
    """The memories of some tiers that a revision after `moment` changed: each one's state at
    the moment (past, by tier and what it counted as then), and each one's row as it stands,
    which the tallies count (present)."""

    moment: dt.datetime
    names: dict[int, str]
    past: dict[tuple[int, str], list[Recorded]] = field(default_factory=dict)
    present: list[tuple[int, str, str]] = field(default_factory=list)  # tier, class, tags
    present_counts: Counter | None = None  # of present, by tier and class, once counted
    purged: int = 0  # memories there then whose recorded state a purge erased

    @classmethod
    def read(cls, moment: dt.datetime, tiers, names: dict[int, str]) -> "ChangedSince":
        changed = cls(moment, names)
        marks = ", ".join(["%s"] * len(tiers))
        at = db_time(moment)
        statements = engine.of(connection).statements
        # Grouped off the range of revision_at_memory: left to choose, SQLite walks every
        # revision in memory order (revision_memory) to skip the sort, the whole history.
        memory_id = statements.unindexed("memory_id")
        keys = statements.json_values("r.before", STATE_KEYS)
        with connection.cursor() as cursor:
            # The first revision after the moment of each memory whose state then was in the
            # tiers: a move's previous tier, else its tier.
            cursor.execute(
                f"SELECT r.id, r.action, r.purged, {keys} FROM {REVISIONS} r WHERE r.id IN "
                f"(SELECT MIN(id) FROM {REVISIONS} WHERE at > %s GROUP BY {memory_id}) "
                f"AND COALESCE(r.previous_tier, r.tier) IN ({marks}) "
                "AND (r.before IS NOT NULL OR r.purged)",
                [at, *tiers],
            )
            for revision_id, action, purged, values in cursor.fetchall():
                if purged:
                    changed.purged += action in _FOUND_IT
                    continue
                state = dict(zip(STATE_KEYS, json.loads(values), strict=True))
                key = (state["project_id"] or GLOBAL_TIER, state_class(state, moment))
                changed.past.setdefault(key, []).append(Recorded(revision_id, state))
            cursor.execute(
                f"SELECT tier, load, CAST(expires_at AS TEXT), tags FROM {MEMORY_TABLE} "
                f"WHERE tier IN ({marks}) AND id IN "
                f"(SELECT memory_id FROM {REVISIONS} WHERE at > %s)",
                [*tiers, at],
            )
            for tier, load, expires_at, tags in cursor.fetchall():
                expiry = stored_moment(expires_at) if expires_at else None
                changed.present.append((tier, _class(load, expiry, moment), tags))
        for records in changed.past.values():
            records.sort(key=lambda record: record.order)
        return changed

    def then(self, tier: int, what: str) -> list[Recorded]:
        """The tier's memories that counted as `what` at the moment (a load, or expired), in
        index order."""
        return self.past.get((tier, what), [])

    def entries(self, records: list[Recorded]) -> list[Entry]:
        """The records as the view shows them, each snapshot read whole."""
        wanted = [r for r in records if "body" not in r.state]
        if wanted:
            ids, params = engine.of(connection).statements.values([r.revision_id for r in wanted])
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT id, before FROM {REVISIONS} WHERE id IN ({ids})", params)
                whole = {revision_id: _json(before) for revision_id, before in cursor.fetchall()}
            for record in wanted:
                record.state = whole[record.revision_id]
        return [_entry(record.state, self.names) for record in records]

    def counted_now(self, tier: int, what: str) -> int:
        """How many of the tier's rows as they stand, counted by the tallies as `what` at the
        moment, are changed since (and so counted by their past state instead)."""
        if self.present_counts is None:
            self.present_counts = Counter((t, kind) for t, kind, _ in self.present)
        return self.present_counts[(tier, what)]


class PastReads(TierReads):
    """What agent_view reads of each tier, as it stood at `now`: the rows unchanged since,
    read as the live view reads them, and the recorded states of the others."""

    def __init__(self, now: dt.datetime, names: dict[int, str], changed: ChangedSince):
        super().__init__(now)
        self._read[("projects",)] = names
        self.changed = changed

    def rows_kept(self) -> tuple[str, list]:
        return (
            f" AND id NOT IN (SELECT memory_id FROM {REVISIONS} WHERE at > %s)",
            [db_time(self.now)],
        )

    def inline(self, tier: int) -> list[Entry]:
        past = [e for e in self.changed.entries(self.changed.then(tier, "inline")) if e.body]
        return sorted([*super().inline(tier), *past], key=INDEX_ORDER)

    def index_candidates(self, tier: int, limit: int) -> list[Entry]:
        past = self.changed.entries(self.changed.then(tier, "index")[:limit])
        return sorted([*super().index_candidates(tier, limit), *past], key=INDEX_ORDER)[:limit]

    def count(self, tier: int, what: str) -> int:
        kind = {"listable": "index", "search_only": "search", "expired": "expired"}[what]
        return (
            super().count(tier, what)
            - self.changed.counted_now(tier, kind)
            + len(self.changed.then(tier, kind))
        )

    def index_tags_beside(self, tiers) -> Callable[[list[int]], list[tuple[str, int]]]:
        def tags_beside(listed: list[int]) -> list[tuple[str, int]]:
            past = [r.state for tier in tiers for r in self.changed.then(tier, "index")]
            changed_ids = {state["id"] for state in past}
            kept = [memory_id for memory_id in listed if memory_id not in changed_ids]
            counts = tallies.left_out_tag_counts(tiers, "index", self.now, kept)
            counts.subtract(
                tag
                for tier, kind, tags in self.changed.present
                if tier in tiers and kind == "index"
                for tag in _json(tags)
            )
            shown = set(listed)
            counts.update(
                tag for state in past if state["id"] not in shown for tag in state["tags"]
            )
            return tallies.most_common_tags(counts)

        return tags_beside

    def tags_among(self, memories: list[Entry]) -> Callable[[list[int]], list[tuple[str, int]]]:
        ids = {entry.id for entry in memories}
        past = {
            record.state["id"]: record.state
            for records in self.changed.past.values()
            for record in records
            if record.state["id"] in ids
        }
        kept = [entry.id for entry in memories if entry.id not in past]

        def tags_beside(listed: list[int]) -> list[tuple[str, int]]:
            shown = set(listed)
            counts = Counter(
                Tag.objects.filter(memory_id__in=[i for i in kept if i not in shown])
                .values_list("tag", flat=True)
                .iterator()
            )
            counts.update(
                tag for state in past.values() if state["id"] not in shown for tag in state["tags"]
            )
            return tallies.most_common_tags(counts)

        return tags_beside


@dataclass
class PastView:
    """The view at a moment, with what the rebuild could not take back."""

    view: AgentView
    moment: dt.datetime
    project: Project | None  # as it was named then
    purged: int

    def text(self) -> str:
        return self.view.text()


def view_at(
    project_id: int | None,
    moment: dt.datetime,
    field_name: str = "at",
    names: dict[int, str] | None = None,
) -> PastView:
    """The agent view of a session on the project of `project_id` (None: no project) as it was
    at `moment`, which the caller has held to answers_from and the present (`field_name` names
    the parameter that gave it; `names`, project_names_at(moment) if read already)."""
    names = project_names_at(moment) if names is None else names
    project = None
    if project_id is not None:
        if project_id not in names:
            raise NotRecorded(
                f"The project was added after {rfc3339(moment)}, so no session was on it then.",
                field=field_name,
            )
        project = Project(id=project_id, name=names[project_id])
    tiers = band_tiers(project)
    changed = ChangedSince.read(moment, tiers, names)
    reads = PastReads(moment, names, changed)
    view = agent_view(project, moment, reads=reads)
    return PastView(view=view, moment=moment, project=project, purged=changed.purged)


def memories_at(ids: list[int], moment: dt.datetime) -> dict[int, Memory]:
    """These memories as they stood at `moment`, by id (a memory not there then is left out)."""
    states: dict[int, Memory] = {}
    firsts = (
        Revision.objects.filter(memory_id__in=ids, at__gt=moment)
        .order_by("memory_id", "id")
        .values_list("memory_id", "before")
    )
    seen: set[int] = set()
    for memory_id, before in firsts:
        if memory_id in seen:
            continue
        seen.add(memory_id)
        if before is not None:
            states[memory_id] = recorded_memory(_json(before))
    for memory in Memory.objects.filter(id__in=[i for i in ids if i not in seen]):
        states[memory.id] = memory
    return states
