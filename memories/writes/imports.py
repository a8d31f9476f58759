"""The import door: a snapshot's memories restored in one transaction, or none of them.

Each entry is validated as the write door would store it, then planned (added, overwritten
or refused, with the reason) against the store and the rest of the snapshot; the dry run
(preview_import) stops at the plan, import_memories lands it.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory
from memories.reads import budget
from memories.rules import fields as f
from memories.rules import secrets, tiers
from memories.rules.budget import InlineContribution
from memories.rules.errors import ImportRefused, InlineBudgetExceeded, InvalidField
from memories.writes import history, row_codec, vectors, wordings
from projects.models import Project


@dataclass
class ImportEntry:
    """One memory of a snapshot as its file gives it; the import door validates it."""

    name: str
    project: str | None
    description: str
    created_at: dt.datetime
    body: str = ""
    tags: list = field(default_factory=list)
    references: list = field(default_factory=list)
    priority: int | None = None
    load: str | None = None
    source: str | None = None
    verified_at: dt.datetime | None = None  # None: verified when created
    expires_at: dt.datetime | None = None
    read_count: int = 0
    superseded_by: str | None = None  # the correction of its tier that ended its force

    @property
    def label(self) -> str:
        return tiers.memory_label(self.name, self.project)


ADD, OVERWRITE, REFUSE = "add", "overwrite", "refuse"


@dataclass
class PlannedEntry:
    entry: ImportEntry
    action: str  # ADD, OVERWRITE or REFUSE
    reason: str = ""  # why it is refused, one sentence
    existing_id: int | None = None
    project_id: int | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.entry.name,
            "project": self.entry.project,
            "action": self.action,
            "reason": self.reason,
        }


@dataclass
class ImportPlan:
    """What an import would do: each memory added, overwritten or refused, and the budget."""

    entries: list[PlannedEntry]
    budget_refusal: str | None = None  # the budget's sentence when the whole would pass it

    def _with(self, action: str) -> list[PlannedEntry]:
        return [planned for planned in self.entries if planned.action == action]

    @property
    def added(self) -> list[PlannedEntry]:
        return self._with(ADD)

    @property
    def overwritten(self) -> list[PlannedEntry]:
        return self._with(OVERWRITE)

    @property
    def refused(self) -> list[PlannedEntry]:
        return self._with(REFUSE)

    @property
    def ok(self) -> bool:
        return not self.refused and self.budget_refusal is None

    def refused_by_reason(self) -> dict[str, list[PlannedEntry]]:
        """The refused memories under each reason, in the order the reasons first occur."""
        groups: dict[str, list[PlannedEntry]] = {}
        for planned in self.refused:
            groups.setdefault(planned.reason, []).append(planned)
        return groups

    def refusal(self) -> ImportRefused:
        """Every refusal, grouped by its reason, in one message; nothing of the import lands."""
        refused = self.refused
        sentences = ["Nothing was imported."]
        if refused:
            total = len(self.entries)
            sentences.append(
                f"{len(refused)} of the snapshot's {total} "
                f"{'memory' if total == 1 else 'memories'} "
                f"{'is' if len(refused) == 1 else 'are'} refused."
            )
            by_reason = self.refused_by_reason()
            for reason, planned in list(by_reason.items())[:5]:
                labels = [p.entry.label for p in planned[:3]]
                more = f" and {len(planned) - 3} more" if len(planned) > 3 else ""
                sentences.append(f"{reason.rstrip('.')}: {', '.join(labels)}{more}.")
            if len(by_reason) > 5:
                sentences.append(f"And {len(by_reason) - 5} other reasons.")
        if self.budget_refusal:
            sentences.append(f"The whole would pass the inline budget: {self.budget_refusal}.")
        return ImportRefused(
            " ".join(sentences),
            refused=[p.to_dict() for p in refused],
            budget=self.budget_refusal,
        )


@dataclass
class ImportResult:
    added: list[ImportEntry]
    overwritten: list[ImportEntry]


def _aware(value, field_name: str) -> dt.datetime:
    if not isinstance(value, dt.datetime) or timezone.is_naive(value):
        raise InvalidField(field_name, f"The {field_name} date needs a time and a zone offset.")
    try:
        value.astimezone(dt.UTC)
    except OverflowError:
        raise InvalidField(
            field_name, f"The {field_name} date is outside the years 1 to 9999."
        ) from None
    return value


def _clean_entry(entry: ImportEntry) -> ImportEntry:
    """The entry with every field as the write door would store it; InvalidField otherwise
    (a credential in it too: an import lets none in)."""
    description = f.description(entry.description)
    if description is None:
        raise InvalidField("description", "A memory needs a description.")
    read_count = entry.read_count
    if isinstance(read_count, bool) or not isinstance(read_count, int) or read_count < 0:
        raise InvalidField("read_count", "The read_count is a whole number, 0 or more.")
    if read_count > 2_147_483_647:
        raise InvalidField("read_count", "The read_count is at most 2147483647.")
    created = _aware(entry.created_at, "created")
    expires = f.expires(entry.expires_at)
    cleaned = ImportEntry(
        name=f.name(entry.name),
        project=None if entry.project is None else f.project_name(entry.project),
        description=description,
        created_at=created,
        body=f.body(entry.body) or "",
        tags=f.tags(entry.tags) or [],
        references=f.references(entry.references) or [],
        priority=f.DEFAULT_PRIORITY if entry.priority is None else f.priority(entry.priority),
        load=f.load(entry.load) or f.DEFAULT_LOAD,
        source=f.one_line(entry.source, "source") or "",
        verified_at=created if entry.verified_at is None else _aware(entry.verified_at, "verified"),
        expires_at=expires or None,
        read_count=read_count,
        superseded_by=(
            None
            if entry.superseded_by is None
            else f.name(entry.superseded_by, field="superseded_by")
        ),
    )
    secrets.check(vars(cleaned), allowed=False)
    return cleaned


def _existing_by_name(names: list[str]) -> dict[str, list[Memory]]:
    found: dict[str, list[Memory]] = {}
    for start in range(0, len(names), 500):
        queryset = (
            Memory.objects.filter(name__in=names[start : start + 500])
            .select_related("project")
            .only("id", "name", "project_id", "project__name", "load", "body", "expires_at")
        )
        for memory in queryset:
            found.setdefault(memory.name, []).append(memory)
    return found


def _plan(entries: list[ImportEntry], *, force: bool, now: dt.datetime) -> ImportPlan:
    planned: list[PlannedEntry] = []
    for entry in entries:
        try:
            planned.append(PlannedEntry(_clean_entry(entry), ADD))
        except InvalidField as error:
            planned.append(PlannedEntry(entry, REFUSE, error.message))
    valid = [p for p in planned if p.action != REFUSE]
    wanted = {p.entry.project for p in valid if p.entry.project is not None}
    project_ids = dict(Project.objects.filter(name__in=wanted).values_list("name", "id"))
    existing = _existing_by_name(sorted({p.entry.name for p in valid}))
    # The tiers other than the global one holding each name, in the store or the snapshot.
    in_projects: dict[str, list[str]] = {}
    in_global: set[str] = set()
    for group in existing.values():
        for memory in group:
            if memory.project_id is None:
                in_global.add(memory.name)
            else:
                in_projects.setdefault(memory.name, []).append(memory.project.name)
    for p in valid:
        if p.entry.project is None:
            in_global.add(p.entry.name)
        else:
            in_projects.setdefault(p.entry.name, []).append(p.entry.project)

    seen: set[tuple[str, str | None]] = set()
    for p in valid:
        entry = p.entry
        if (entry.name, entry.project) in seen:
            p.action, p.reason = REFUSE, "The snapshot holds it twice."
            continue
        seen.add((entry.name, entry.project))
        if entry.project is not None and entry.project not in project_ids:
            p.action = REFUSE
            p.reason = f"There is no project named '{entry.project}'; add it first."
            continue
        p.project_id = project_ids.get(entry.project)
        if entry.project is None and entry.name in in_projects:
            other = tiers.phrase(sorted(in_projects[entry.name])[0])
        elif entry.project is not None and entry.name in in_global:
            other = tiers.phrase(None)
        else:
            other = None
        if other is not None:
            p.action = REFUSE
            p.reason = (
                f"'{entry.name}' is also a memory of {other}, and a global name is never also "
                "a project's: choose another name."
            )
            continue
        same_tier = [m for m in existing.get(entry.name, []) if m.project_id == p.project_id]
        if same_tier:
            if not force:
                p.action = REFUSE
                p.reason = "The store already holds it in the same tier; overwriting needs force."
                continue
            p.action, p.existing_id = OVERWRITE, same_tier[0].id

    plan = ImportPlan(planned)
    landing = [p for p in planned if p.action != REFUSE]
    existing_by_id = {m.id: m for group in existing.values() for m in group}
    before = []
    for p in landing:
        if p.existing_id is None:
            continue
        before.append(InlineContribution.of_memory(existing_by_id[p.existing_id], now))
    after = [
        InlineContribution.of(
            memory_id=p.existing_id,
            name=p.entry.name,
            project=p.entry.project,
            tier=p.project_id or GLOBAL_TIER,
            load=p.entry.load,
            body=p.entry.body,
            expires_at=p.entry.expires_at,
            now=now,
        )
        for p in landing
    ]
    try:
        budget.refuse_if_past_budget(before, after, now)
    except InlineBudgetExceeded as error:
        plan.budget_refusal = error.message
    return plan


def preview_import(entries: list[ImportEntry], *, force: bool = False) -> ImportPlan:
    """The dry run of import_memories: what it would add, overwrite and refuse. Writes nothing."""
    return _plan(entries, force=force, now=timezone.now())


IMPORT_INSERT_COLUMNS = (
    "name",
    "project_id",
    *row_codec.CONTENT,
    *row_codec.STAMPS,
    "read_count",
    "superseded_by",
)
IMPORT_INSERT = row_codec.insert(IMPORT_INSERT_COLUMNS)
# Only an import assigns created_at on an existing row: it restores the snapshot's stamp.
IMPORT_OVERWRITE, IMPORT_OVERWRITE_COLUMNS = row_codec.update(
    (*row_codec.CONTENT, *row_codec.STAMPS, "read_count", "superseded_by")
)

IMPORT_BATCH = 500


def import_memories(
    entries: list[ImportEntry], *, force: bool = False, progress=None
) -> ImportResult:
    """Restore a snapshot: every memory in one transaction, or nothing.

    created, verified and read_count are restored as written. A memory the store holds in
    the same tier is refused unless `force` (then the file overwrites it); a name a global
    and a project memory would share is refused outright; unknown projects are refused; the
    inline budget holds over the whole import. `progress(n)` is told of each batch written.
    """
    noun = "memory" if len(entries) == 1 else "memories"
    summary = f"Import of {len(entries)} {noun}"
    with transaction.atomic(), history.change_set(summary, door=history.IMPORT):
        now = timezone.now()
        plan = _plan(entries, force=force, now=now)
        if not plan.ok:
            raise plan.refusal()
        overwritten = history.states([p.existing_id for p in plan.overwritten])
        inserts, updates = [], []
        for p in plan.entries:
            e = p.entry
            row = {
                **row_codec.content(vars(e)),
                "id": p.existing_id,
                "name": e.name,
                "project_id": p.project_id,
                "created_at": e.created_at,
                "updated_at": now,
                "verified_at": e.verified_at,
                "expires_at": e.expires_at,
                "read_count": e.read_count,
                "superseded_by": e.superseded_by,
            }
            if p.action == OVERWRITE:
                updates.append(row_codec.bound(row, IMPORT_OVERWRITE_COLUMNS))
            else:
                inserts.append(row_codec.bound(row, IMPORT_INSERT_COLUMNS))
        with connection.cursor() as cursor:
            for statement, rows in ((IMPORT_OVERWRITE, updates), (IMPORT_INSERT, inserts)):
                for start in range(0, len(rows), IMPORT_BATCH):
                    batch = rows[start : start + IMPORT_BATCH]
                    cursor.executemany(statement, batch)
                    if progress is not None:
                        progress(len(batch))
        written = history.record_import(
            [(p.entry.name, p.project_id) for p in plan.entries], overwritten
        )
        vectors.keep(written)
        wordings.keep(written)
    return ImportResult(
        added=[p.entry for p in plan.added], overwritten=[p.entry for p in plan.overwritten]
    )
