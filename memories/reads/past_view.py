"""The agent view as it stood at a past moment, rebuilt from the states the history keeps.

Each revision ends the state of its memory it found and begins the one it leaves
(memories.models.MemoryState, kept by memories.writes.states): what places a memory in a view
(tier, load, order, expiry, tags), when it stood, and where its text is (the `before` of the
revision that ended it, or the row while it stands). So the rebuild reads what the live view
reads, the states that stood at the moment in place of the rows, off the same kind of index
range; the counts are the tallies of now less the memories that joined a tier, load or tag
since and plus those that left it since; agent_view then decides and render writes the
text, as for the live view. Its cost follows what the view shows and how many memories moved
between tiers, loads and tags since, not the revisions since (bench/results/2026-12-05-asof2).

The diff reads a memory's state whole into a Memory (recorded_memory), whatever fields the
model holds. Projects are named as they were then (their renames, additions and removals are
recorded apart). An expiry passing is no revision: a state is in force or not by the moment
asked about. What pruning removed (`history prune`) cannot be taken back, so a moment before
the oldest revision kept is not answered (answers_from); a purged memory's text is gone, so
a view then counts it as purged instead of showing it.
"""

import datetime as dt
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from memories import engine
from memories.engine.tables import BAND_TALLY, MEMORY_TABLE, TAG_TALLY
from memories.models import (
    Memory,
    MemoryState,
    ProjectAction,
    ProjectRevision,
    Revision,
    TrashedMemory,
)
from memories.reads import tallies
from memories.reads.agent_view import (
    INDEX_ORDER,
    AgentView,
    Entry,
    TierReads,
    agent_view,
    stored_moment,
)
from memories.reads.rows import db_time
from memories.rules.errors import NotRecorded
from memories.rules.fields import rfc3339
from projects.models import Project

REVISIONS = Revision._meta.db_table
TRASH = TrashedMemory._meta.db_table
STATES = MemoryState._meta.db_table
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


def _stood() -> str:
    """The condition that a state stood at the moment (its two params: the moment twice)."""
    return "(since IS NULL OR since <= %s) AND (until IS NULL OR until > %s)"


class PastReads(TierReads):
    """What agent_view reads of each tier, as it stood at `now`: the states that stood then
    (memories.models.MemoryState) where the live view reads the rows, and the tallies of now
    less what joined the tiers since and plus what left them."""

    def __init__(self, now: dt.datetime, names: dict[int, str]):
        super().__init__(now)
        self._read[("projects",)] = names
        self._tags: dict[int, list[str]] = {}  # the tags of each state read, by memory
        # Per tier, the (load, tags, memories) that joined since, left since, expired then.
        self._moved: dict[str, dict[int, list[tuple[str, list[str], int]]]] = {}
        self.purged = 0

    def _read_arms(self, arms: list[tuple[int, str, int | None]]) -> dict[tuple, list[Entry]]:
        moment = db_time(self.now)
        stood = _stood()
        in_force = "(expires_at IS NULL OR expires_at > %s) AND NOT purged"
        columns = "tier, load, memory_id, ended_by, priority, CAST(created_at AS TEXT), tags"
        selects, params = [], []
        for number, (tier, load, limit) in enumerate(arms):
            body = " AND has_body" if load == "inline" else ""
            where = f"tier = %s AND load = %s AND {stood} AND {in_force}{body}"
            if limit is None:
                selects.append(f"SELECT {columns} FROM {STATES} WHERE {where}")
                params += [tier, load, moment, moment, moment]
                continue
            selects.append(
                f"SELECT * FROM (SELECT {columns} FROM {STATES} WHERE {where} "
                f"ORDER BY priority, created_at DESC, memory_id DESC LIMIT %s) AS arm{number}"
            )
            params += [tier, load, moment, moment, moment, limit]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(selects), params)
            rows = cursor.fetchall()
        texts = self._texts(rows)
        found: dict[tuple, list[Entry]] = {(tier, load): [] for tier, load, _ in arms}
        names = self._read[("projects",)]
        for tier, load, memory_id, ended_by, priority, created, tags in rows:
            name, project_id, description, body = texts[(memory_id, ended_by)]
            self._tags[memory_id] = _json(tags)
            body = body if load == "inline" else ""  # an index entry's body is never shown
            found[(tier, load)].append(
                Entry.stored(
                    memory_id, name, project_id, names, priority, created, description, body
                )
            )
        for entries in found.values():
            entries.sort(key=INDEX_ORDER)
        return found

    def _texts(self, rows) -> dict[tuple[int, int | None], tuple]:
        """The name, project, description and body of each state read, by (memory, the
        revision that ended it): that revision's `before`, or the row while it stands."""
        ended = [ended_by for _, _, _, ended_by, *_ in rows if ended_by is not None]
        standing = [memory_id for _, _, memory_id, ended_by, *_ in rows if ended_by is None]
        texts = {}
        statements = engine.of(connection).statements
        with connection.cursor() as cursor:
            if ended:
                ids, params = statements.values(ended)
                cursor.execute(
                    f"SELECT memory_id, id, before FROM {REVISIONS} WHERE id IN ({ids})", params
                )
                for memory_id, revision_id, before in cursor.fetchall():
                    state = _json(before)
                    texts[(memory_id, revision_id)] = (
                        state["name"],
                        state["project_id"],
                        state["description"],
                        state["body"],
                    )
            if standing:
                ids, params = statements.values(standing)
                cursor.execute(
                    f"SELECT id, name, project_id, description, body FROM {MEMORY_TABLE} "
                    f"WHERE id IN ({ids})",
                    params,
                )
                for memory_id, *text in cursor.fetchall():
                    texts[(memory_id, None)] = tuple(text)
        return texts

    def read_tallies(self, tiers) -> None:
        """Each tier's memories per load at the moment (the tallies of now, less the states
        that joined the tier since, plus those that left it since) and those expired then,
        with their tags; and how many memories of the tiers a purge erased since."""
        missing = [tier for tier in tiers if ("tally", tier) not in self._read]
        if not missing:
            return
        marks = ", ".join(["%s"] * len(missing))
        moment = db_time(self.now)
        stood = _stood()
        grouped = "tier, load, tags, COUNT(*)"
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 'now', tier, load, NULL, CAST(SUM(memories) AS BIGINT) FROM {BAND_TALLY} "
                f"WHERE tier IN ({marks}) GROUP BY tier, load UNION ALL "
                f"SELECT 'joined', {grouped} FROM {STATES} "
                f"WHERE joins AND tier IN ({marks}) AND since > %s GROUP BY tier, load, tags "
                f"UNION ALL SELECT 'left', {grouped} FROM {STATES} "
                f"WHERE leaves AND tier IN ({marks}) AND until > %s GROUP BY tier, load, tags "
                f"UNION ALL SELECT 'expired', {grouped} FROM {STATES} "
                f"WHERE tier IN ({marks}) AND expires_at <= %s AND {stood} AND NOT purged "
                "GROUP BY tier, load, tags "
                f"UNION ALL SELECT 'purged', tier, '', NULL, COUNT(*) FROM {STATES} "
                f"WHERE purged AND tier IN ({marks}) AND until > %s AND "
                "(since IS NULL OR since <= %s) GROUP BY tier",
                [
                    *missing,
                    *missing,
                    moment,
                    *missing,
                    moment,
                    *missing,
                    moment,
                    moment,
                    moment,
                    *missing,
                    moment,
                    moment,
                ],
            )
            rows = cursor.fetchall()
        memories = {tier: Counter() for tier in missing}
        expired = {tier: Counter() for tier in missing}
        for kind, tier, load, tags, count in rows:
            if kind == "purged":
                self.purged += count
                continue
            if kind != "now":
                self._moved.setdefault(kind, {}).setdefault(tier, []).append(
                    (load, _json(tags), count)
                )
            if kind == "expired":
                expired[tier][load] += count
            else:
                memories[tier][load] += -count if kind == "joined" else count
        for tier in missing:
            self._read[("tally", tier)] = tallies.TierTally(
                dict(memories[tier]), dict(expired[tier])
            )

    def _moved_tags(self, tiers, load: str) -> Counter:
        """The tags of the tiers' memories of `load` at the moment less those of now: what
        left since counted in, what joined since counted out, and the expired then out."""
        counts: Counter = Counter()
        for kind, sign in (("joined", -1), ("left", 1), ("expired", -1)):
            for tier in tiers:
                for state_load, tags, count in self._moved.get(kind, {}).get(tier, []):
                    if state_load == load:
                        for tag in tags:
                            counts[tag] += sign * count
        return counts

    def index_tags_beside(self, tiers) -> Callable[[list[int]], list[tuple[str, int]]]:
        def tags_beside(listed: list[int]) -> list[tuple[str, int]]:
            marks = ", ".join(["%s"] * len(tiers))
            counts = self._moved_tags(tiers, "index")
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT tag, CAST(SUM(memories) AS BIGINT) FROM {TAG_TALLY} "
                    f"WHERE load = %s AND tier IN ({marks}) GROUP BY tag",
                    ["index", *tiers],
                )
                for tag, count in cursor.fetchall():
                    counts[tag] += count
            counts.subtract(tag for memory_id in listed for tag in self._tags[memory_id])
            return tallies.most_common_tags(counts)

        return tags_beside

    def tags_among(self, memories: list[Entry]) -> Callable[[list[int]], list[tuple[str, int]]]:
        def tags_beside(listed: list[int]) -> list[tuple[str, int]]:
            shown = set(listed)
            return tallies.most_common_tags(
                Counter(
                    tag
                    for entry in memories
                    if entry.id not in shown
                    for tag in self._tags[entry.id]
                )
            )

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
    reads = PastReads(moment, names)
    view = agent_view(project, moment, reads=reads)
    return PastView(view=view, moment=moment, project=project, purged=reads.purged)


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
