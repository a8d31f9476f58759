"""Reads of the history shared by the pages, /v1 and the exports: the audit log (a memory's
history is the log filtered to it), change sets, the trash, and the one dict form of a
revision every JSON answer uses."""

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields

from django import forms
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet

from memories.models import (
    GLOBAL_TIER,
    Action,
    ChangeSet,
    Door,
    ProjectRevision,
    Revision,
    TrashedMemory,
)
from memories.reads.params import TierForm
from memories.rules import diffs, reach, tiers
from memories.rules import fields as memory_fields
from memories.rules.errors import InvalidField
from memories.rules.fields import rfc3339
from memories.rules.tiers import ANY_TIER
from projects.models import Project

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
EXPORT_CHUNK = 500


@dataclass(frozen=True)
class AuditFilters:
    user: str | None = None  # a username, as recorded (kept when the user is deleted)
    project: object = ANY_TIER  # ANY_TIER, None (the global tier) or a project name
    door: str | None = None
    action: str | None = None
    memory: str | None = None  # a memory name, in any tier
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    change_set: int | None = None
    memory_id: int | None = None  # one memory's own history (not a query parameter)

    def apply(self, queryset: QuerySet) -> QuerySet:
        if self.memory_id is not None:
            queryset = queryset.filter(memory_id=self.memory_id)
        queryset = self.who_and_when(queryset)
        if self.project is None:
            queryset = queryset.filter(Q(tier=GLOBAL_TIER) | Q(previous_tier=GLOBAL_TIER))
        elif self.project is not ANY_TIER:
            # A project removed since is still found by the name its revisions recorded.
            project_id = Project.objects.filter(name=self.project).values_list("id", flat=True)
            if project_id:
                queryset = queryset.filter(Q(tier=project_id[0]) | Q(previous_tier=project_id[0]))
            else:
                queryset = queryset.filter(project_name=self.project).exclude(tier=GLOBAL_TIER)
        if self.action:
            queryset = queryset.filter(action=self.action)
        if self.memory:
            queryset = queryset.filter(name=self.memory)
        if self.change_set is not None:
            queryset = queryset.filter(change_set_id=self.change_set)
        return queryset

    def who_and_when(self, queryset: QuerySet) -> QuerySet:
        """The user, door and time filters, which every history row (memories.models.Acted,
        with its `at`) answers."""
        if self.user:
            queryset = queryset.filter(username=self.user)
        if self.door:
            queryset = queryset.filter(door=self.door)
        if self.since:
            queryset = queryset.filter(at__gte=self.since)
        if self.until:
            queryset = queryset.filter(at__lt=self.until)
        return queryset

    def labels(self) -> list[str]:
        parts = []
        if self.memory:
            parts.append(f"of ‘{self.memory}’")
        if self.project is not ANY_TIER:
            parts.append(tiers.where(self.project))
        if self.user:
            parts.append(f"by {self.user}")
        if self.door:
            parts.append(f"through the {Door(self.door).label} door")
        if self.action:
            parts.append(f"action {self.action}")
        if self.since:
            parts.append(f"since {rfc3339(self.since)}")
        if self.until:
            parts.append(f"before {rfc3339(self.until)}")
        if self.change_set is not None:
            parts.append(f"in change set {self.change_set}")
        return parts

    def summary(self, count: int) -> str:
        noun = "change" if count == 1 else "changes"
        return " ".join([f"{count:,} {noun}", ", ".join(self.labels())]).strip() + ", newest first"


PROJECT_CHANGES_SHOWN = 20


@dataclass
class ProjectChanges:
    """The newest project changes a log's filters admit, and how many there are in all."""

    changes: list[ProjectRevision]
    count: int


def project_changes(filters: AuditFilters, limit: int = PROJECT_CHANGES_SHOWN) -> ProjectChanges:
    """The changes to projects (added, renamed, removed) that the audit log's filters admit,
    newest first: none when the filters ask for memories only (a memory, a change set, a
    memory's kind of change, the global tier)."""
    if (
        filters.memory
        or filters.change_set is not None
        or filters.action
        or filters.project is None
    ):
        return ProjectChanges([], 0)
    queryset = filters.who_and_when(ProjectRevision.objects.all())
    if filters.project is not ANY_TIER:
        queryset = queryset.filter(Q(name=filters.project) | Q(previous_name=filters.project))
    return ProjectChanges(list(queryset.order_by("-id")[:limit]), queryset.count())


def _moment(value: str, field: str, *, end_of_day: bool) -> dt.datetime | None:
    """RFC 3339, or a YYYY-MM-DD day in the server's zone: its start, or with `end_of_day`
    the start of the next (so until=2026-03-01 takes in the whole of that day)."""
    text = value.strip()
    if not text:
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            try:
                day = dt.date.fromisoformat(text)
            except ValueError:
                raise InvalidField(field, f"'{text}' is not a calendar date.") from None
            if end_of_day:
                day += dt.timedelta(days=1)
            moment = dt.datetime.combine(day, dt.time(), tzinfo=memory_fields.local_zone())
        else:
            try:
                moment = memory_fields.expires(text)
            except InvalidField as error:
                raise InvalidField(field, error.message.replace("expiry", field)) from None
        moment.astimezone(dt.UTC)
    except OverflowError:
        raise InvalidField(field, f"'{text}' is outside the years 1 to 9999.") from None
    return moment


class AuditFilterForm(TierForm):
    """The audit log's query parameters, page and /v1/audit alike."""

    user = forms.CharField(required=False, max_length=150)
    door = forms.ChoiceField(required=False, choices=[("", "any door"), *Door.choices])
    action = forms.ChoiceField(required=False, choices=[("", "any change"), *Action.choices])
    memory = forms.CharField(required=False, max_length=memory_fields.MEMORY_NAME_MAX)
    since = forms.CharField(required=False, max_length=40)
    until = forms.CharField(required=False, max_length=40)
    change_set = forms.IntegerField(required=False, min_value=1, max_value=memory_fields.MAX_ID)
    limit = forms.IntegerField(required=False, min_value=1, max_value=MAX_LIMIT)
    before = forms.IntegerField(
        required=False, min_value=1, max_value=memory_fields.MAX_ID
    )  # older than
    after = forms.IntegerField(
        required=False, min_value=0, max_value=memory_fields.MAX_ID
    )  # newer than

    def clean_user(self):
        return self.cleaned_data["user"].strip() or None

    def clean_memory(self):
        return self.cleaned_data["memory"].strip() or None

    def clean_door(self):
        return self.cleaned_data["door"] or None

    def clean_action(self):
        return self.cleaned_data["action"] or None

    def _clean_moment(self, name: str, *, end_of_day: bool):
        try:
            return _moment(self.cleaned_data[name], name, end_of_day=end_of_day)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None

    def clean_since(self):
        return self._clean_moment("since", end_of_day=False)

    def clean_until(self):
        return self._clean_moment("until", end_of_day=True)

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since >= until:
            raise forms.ValidationError("'since' is not before 'until'.")
        if cleaned.get("before") and cleaned.get("after") is not None:
            raise forms.ValidationError("Give 'before' or 'after', not both.")
        return cleaned

    def filters(self) -> AuditFilters:
        names = [f.name for f in fields(AuditFilters) if f.name != "memory_id"]
        return AuditFilters(**{name: self.cleaned_data.get(name) for name in names})


@dataclass
class Entry:
    """One revision as the pages and the API show it: the row and its field changes."""

    revision: Revision
    changes: list[diffs.FieldChange]

    @property
    def project(self) -> str | None:
        return None if self.revision.tier == GLOBAL_TIER else self.revision.project_name

    @property
    def can_restore(self) -> bool:
        """A version there is to restore: what a change left, not purged, not a removal."""
        return self.revision.after is not None and not self.revision.purged

    def summary(self) -> str:
        """The changes in one line, for the log and the CSV export: for a memory that
        appears or goes, its description; else each field changed."""
        before, after = self.revision.before, self.revision.after
        if before is None and after is not None:
            return f"new: {_short(after['description'])}"
        if after is None and before is not None:
            return f"was: {_short(before['description'])}"
        return change_summary(self.changes)

    def to_dict(self) -> dict:
        revision = self.revision
        return {
            "id": revision.id,
            "at": rfc3339(revision.at),
            "memory": {"id": revision.memory_id, "name": revision.name, "project": self.project},
            "action": revision.action,
            "door": revision.door,
            "actor": revision.actor,
            "user": revision.username or None,
            "token": revision.token_id,
            "reason": revision.reason,
            "change_set": revision.change_set_id,
            "purged": revision.purged,
            "changes": [change.to_dict() for change in self.changes],
        }


def _short(value) -> str:
    if value is None or value == "":
        return "none"
    text = ", ".join(value) if isinstance(value, list) else str(value)
    return text if len(text) <= 60 else text[:57] + "…"


def change_summary(changes: list[diffs.FieldChange]) -> str:
    parts = []
    for change in changes:
        if change.kind == diffs.TEXT:
            added = sum(1 for line in change.lines if line.op == "add")
            removed = sum(1 for line in change.lines if line.op == "del")
            parts.append(f"body +{added} −{removed} lines")
        elif change.kind == diffs.LIST:
            moves = [f"+{item}" for item in change.added] + [f"−{item}" for item in change.removed]
            parts.append(f"{change.field} {' '.join(moves) or 'reordered'}")
        elif change.field == "project":  # a tier in words, as the History tab shows it
            parts.append(f"moved from {tiers.phrase(change.old)} to {tiers.phrase(change.new)}")
        else:
            parts.append(f"{change.field} {_short(change.old)} → {_short(change.new)}")
    return "; ".join(parts)


def entries(revisions) -> list[Entry]:
    return [Entry(revision, diffs.revision_changes(revision)) for revision in revisions]


@dataclass
class LogPage:
    entries: list[Entry]
    count: int
    older: int | None  # `before=` for the next page of older changes
    newer: int | None  # `after=` for the page of newer ones


def revisions(filters: AuditFilters) -> QuerySet:
    return filters.apply(Revision.objects.all())


def log_page(
    filters: AuditFilters,
    *,
    limit: int = DEFAULT_LIMIT,
    before: int | None = None,
    after: int | None = None,
) -> LogPage:
    """A page of the log, newest first, by keyset on the revision id (it grows with time)."""
    queryset = revisions(filters)
    if after is not None:
        rows = list(queryset.filter(id__gt=after).order_by("id")[: limit + 1])
        more_newer = len(rows) > limit
        rows = rows[:limit][::-1]
        more_older = bool(rows) and queryset.filter(id__lt=rows[-1].id).exists()
    else:
        older = queryset.filter(id__lt=before) if before is not None else queryset
        rows = list(older.order_by("-id")[: limit + 1])
        more_older = len(rows) > limit
        rows = rows[:limit]
        more_newer = (
            before is not None and bool(rows) and queryset.filter(id__gt=rows[0].id).exists()
        )
    return LogPage(
        entries=entries(rows),
        count=queryset.count(),
        older=rows[-1].id if rows and more_older else None,
        newer=rows[0].id if rows and more_newer else None,
    )


def export_rows(filters: AuditFilters) -> Iterator[Entry]:
    """Every revision the filters admit, newest first, read in chunks."""
    queryset = revisions(filters).order_by("-id")
    last = None
    while True:
        chunk = queryset if last is None else queryset.filter(id__lt=last)
        rows = list(chunk[:EXPORT_CHUNK])
        yield from entries(rows)
        if len(rows) < EXPORT_CHUNK:
            return
        last = rows[-1].id


def revision(revision_id) -> Revision | None:
    try:
        return Revision.objects.filter(id=int(revision_id)).first()
    except (TypeError, ValueError):
        return None


def revision_before_last(memory_id: int) -> int | None:
    """The id of a memory's revision before its latest (what its last change replaced), or
    None when it has no earlier one."""
    earlier = Revision.objects.filter(memory_id=memory_id).order_by("-id").values_list("id")
    found = earlier[1:2]
    return found[0][0] if found else None


def _within_reach(queryset: QuerySet) -> QuerySet:
    """The change sets all of whose revisions the caller's reach sees: one that touched a
    tier past it is not shown at all, its summary counting what it changed there."""
    seen = reach.current().seen
    if seen is None:
        return queryset
    outside = Revision.every.filter(change_set=OuterRef("id")).filter(
        ~Q(tier__in=seen) | (Q(previous_tier__isnull=False) & ~Q(previous_tier__in=seen))
    )
    return queryset.filter(~Exists(outside))


def current_revisions(memory_ids: list[int]) -> dict[int, int]:
    """The last revision of each of these memories, by memory id: the version an agent read
    (a memory of no revision, written behind the doors, is left out)."""
    rows = (
        Revision.objects.filter(memory_id__in=memory_ids)
        .values("memory_id")
        .annotate(last=Max("id"))
        .values_list("memory_id", "last")
    )
    return dict(rows)


def change_sets(*, limit: int = DEFAULT_LIMIT, before: int | None = None) -> list[ChangeSet]:
    """The latest change sets with how many revisions each holds, and what undid them."""
    queryset = _within_reach(ChangeSet.objects.all()).annotate(size=Count("revisions"))
    queryset = queryset.select_related("undoes", "undone_by")
    if before is not None:
        queryset = queryset.filter(id__lt=before)
    return list(queryset.order_by("-id")[:limit])


def _acted(row) -> dict:
    """Who made a change set or a revision, through which door, and why."""
    return {
        "door": row.door,
        "actor": row.actor,
        "user": row.username or None,
        "token": row.token_id,
        "reason": row.reason,
    }


def change_set_dict(group: ChangeSet, size: int) -> dict:
    """A change set as /v1 shows it: what it was, who made it, and what undid it or what
    it undoes. `size`: the revisions it holds."""
    undone_by = getattr(group, "undone_by", None)
    return {
        "id": group.id,
        "at": rfc3339(group.at),
        "summary": group.summary,
        **_acted(group),
        "size": size,
        "undoes": group.undoes_id,
        "undone_by": undone_by.id if undone_by is not None else None,
    }


def change_set(change_set_id) -> ChangeSet | None:
    try:
        key = int(change_set_id)
    except (TypeError, ValueError):
        return None
    found = _within_reach(ChangeSet.objects.filter(id=key))
    return found.select_related("undoes", "undone_by").first()


@dataclass
class TrashRow:
    entry: TrashedMemory

    @property
    def revision(self) -> Revision:
        return self.entry.revision

    @property
    def state(self) -> dict:
        return self.entry.revision.before

    @property
    def project(self) -> str | None:
        return self.state["project"]

    @property
    def body_bytes(self) -> int:
        return len(self.state["body"].encode("utf-8"))

    def to_dict(self) -> dict:
        """The trashed memory as /v1 lists it: `id` restores it, `revision` is its deletion."""
        state, revision = self.state, self.revision
        return {
            "id": self.entry.id,
            "name": state["name"],
            "project": self.project,
            "description": state["description"],
            "load": state["load"],
            "priority": state["priority"],
            "tags": state["tags"],
            "body_bytes": self.body_bytes,
            "deleted_at": rfc3339(revision.at),
            "revision": revision.id,
            **_acted(revision),
        }


def trash(*, limit: int = DEFAULT_LIMIT, before: int | None = None) -> tuple[list[TrashRow], int]:
    """The trash, most recently deleted first, and how many memories it holds."""
    queryset = TrashedMemory.objects.select_related("revision")
    count = queryset.count()
    if before is not None:
        queryset = queryset.filter(id__lt=before)
    return [TrashRow(entry) for entry in queryset.order_by("-id")[:limit]], count


def trash_row(trashed_id) -> TrashRow | None:
    try:
        key = int(trashed_id)
    except (TypeError, ValueError):
        return None
    entry = TrashedMemory.objects.select_related("revision").filter(id=key).first()
    return None if entry is None else TrashRow(entry)
