"""The change feed: every committed change to the store (a memory's write, edit, delete, move,
restore, undo, import...; a project's add, rename, remove), in commit order, as the doors
recorded it (memories.writes.history, memories.models.Change).

A reader keeps the id of the last change it saw and reads past it; the feed's ids are taken
in commit order, so reading past an id misses nothing and repeats nothing.
"""

from dataclasses import dataclass

from django import forms
from django.db import connection

from memories.models import Change
from memories.reads import filters, visibility
from memories.reads.params import FirstErrorMixin
from memories.rules.fields import rfc3339
from memories.rules.tiers import ANY_TIER, GLOBAL_TIER
from projects.models import Project

# Past this many changes a stream resuming from an old id is told to read afresh instead.
BACKLOG_MAX = 1000
_LATEST = f"SELECT MAX(id) FROM {Change._meta.db_table}"
PROJECT_KINDS = ("project-add", "project-rename", "project-remove")


@dataclass(frozen=True)
class Event:
    """One change, as a stream sends it."""

    id: int
    at: str
    kind: str
    tier: int
    previous_tier: int | None
    project: str | None
    name: str
    previous_name: str
    memory_id: int | None
    revision: int | None
    door: str
    actor: str
    tags: tuple[str, ...]

    @classmethod
    def of(cls, change: Change) -> "Event":
        return cls(
            id=change.id,
            at=rfc3339(change.at),
            kind=change.kind,
            tier=change.tier,
            previous_tier=change.previous_tier,
            project=change.project_name,
            name=change.name,
            previous_name=change.previous_name,
            memory_id=change.memory_id,
            revision=change.revision_id,
            door=change.door,
            actor=change.actor,
            tags=tuple(change.tags or ()),
        )

    @property
    def of_project(self) -> bool:
        return self.kind in PROJECT_KINDS

    @property
    def tiers(self) -> tuple[int, ...]:
        """The tiers the change touched: its own, and the one a move left."""
        if self.previous_tier is None:
            return (self.tier,)
        return (self.tier, self.previous_tier)

    def to_dict(self) -> dict:
        """The event's data: the memory changed (or the project), how, by whom."""
        answer = {
            "id": self.id,
            "at": self.at,
            "kind": self.kind,
            "name": self.name,
            "project": self.project,
            "memory_id": self.memory_id,
            "revision": self.revision,
            "door": self.door,
            "actor": self.actor,
        }
        if self.previous_name:
            answer["previous_name"] = self.previous_name
        return answer


def latest_id() -> int:
    """The id of the last change committed (0: none yet). A plain statement: every live page
    asks it as it is drawn."""
    with connection.cursor() as cursor:
        cursor.execute(_LATEST)
        return cursor.fetchone()[0] or 0


def after(last_id: int, *, up_to: int | None = None, limit: int = BACKLOG_MAX) -> list[Event]:
    """The changes committed after `last_id` (up to `up_to`), oldest first, `limit` at most."""
    rows = Change.objects.filter(id__gt=last_id).order_by("id")
    if up_to is not None:
        rows = rows.filter(id__lte=up_to)
    return [Event.of(change) for change in rows[:limit]]


@dataclass(frozen=True)
class Backlog:
    """What a stream resuming after an id missed: the events, or `stale` when they are more
    than a stream replays (or were pruned): its reader reads the store afresh."""

    events: list[Event]
    stale: bool


def backlog(last_id: int, up_to: int) -> Backlog:
    if last_id >= up_to:
        return Backlog([], stale=False)
    events = after(last_id, up_to=up_to, limit=BACKLOG_MAX + 1)
    missing = not events or events[0].id > last_id + 1 and _pruned_after(last_id)
    return Backlog(events[:BACKLOG_MAX], stale=len(events) > BACKLOG_MAX or bool(missing))


def _pruned_after(last_id: int) -> bool:
    """Whether changes after `last_id` were pruned (ids skipped by a rolled-back write are
    gaps too, which lose nothing): the oldest change kept is newer than it."""
    oldest = Change.objects.order_by("id").values_list("id", flat=True).first()
    return oldest is not None and oldest > last_id + 1 and last_id > 0


class EventFilterForm(FirstErrorMixin, forms.Form):
    """What a stream is narrowed to (/v1/memories's `project` and `tag`) and where it starts:
    `after` a change's id (the page's, as it was drawn), else now."""

    project = filters.BY_KEY["project"].form_field()
    tag = filters.TAG.form_field()
    after = forms.IntegerField(required=False, min_value=0)


@dataclass(frozen=True)
class EventFilter:
    """A stream's filters: a tier (ANY_TIER: every tier) and a tag (None: any)."""

    tier: object = ANY_TIER
    tag: str | None = None

    @classmethod
    def of(cls, form: EventFilterForm) -> "EventFilter":
        """The filter of a valid form; a project no project has is refused (UnknownProject)."""
        project, tag = form.cleaned_data["project"], form.cleaned_data["tag"]
        if project is ANY_TIER:
            tier = ANY_TIER
        elif project is None:
            tier = GLOBAL_TIER
        else:
            tier = Project.objects.named(project).id
        return cls(tier=tier, tag=tag.lower() if tag else None)

    def admits(self, event: Event) -> bool:
        if self.tier is not ANY_TIER and self.tier not in event.tiers:
            return False
        if self.tag is None:
            return True
        return not event.of_project and any(tag.lower() == self.tag for tag in event.tags)


def sees(receiver: visibility.Receiver, event: Event) -> bool:
    """Whether the receiver may see the event: any tier it touched, as reads would show it."""
    return any(visibility.may_see(receiver, tier) for tier in event.tiers)
