"""The doors: every write to a memory, from a page, the API, a command or an import.

Each door validates its input, runs its read-modify-write inside one atomic() block (a
BEGIN IMMEDIATE transaction, so two writers never interleave a read and a write), enforces
the tier, name and budget rules, and raises a typed DomainError that lands nothing.
"""

import datetime as dt
import json
import re
from dataclasses import dataclass, field

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from memories import engine
from memories.models import GLOBAL_TIER, Memory
from memories.reads import budget
from memories.reads.selectors import locate, memories_by_id, referenced_by
from memories.rules import fields as f
from memories.rules import similarity, tiers
from memories.rules.budget import InlineContribution
from memories.rules.captions import read_caption
from memories.rules.errors import (
    DomainError,
    EditMismatch,
    ImportRefused,
    InlineBudgetExceeded,
    InvalidField,
    MemoryNotFound,
    NameClash,
    PreconditionFailed,
    StaleBody,
)
from memories.rules.tiers import ANY_TIER
from memories.writes import history
from projects.models import Project

READ_PAGE_CHARS = 16_000
# Words too common to tell two descriptions apart; leaving them out keeps the candidate
# query to the index entries of the distinguishing words.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "we",
        "our",
        "you",
        "your",
        "not",
        "no",
        "all",
        "any",
        "can",
        "do",
        "does",
        "into",
        "over",
        "under",
        "than",
        "then",
    ]
)

# created_at appears in the VALUES of a new row and nowhere in DO UPDATE: the statement
# itself keeps the first stamp, whatever a door passes on a later write.
UPSERT = """
INSERT INTO memories_memory (
    name, project_id, description, body, tags, refs, priority, load, source,
    created_at, updated_at, verified_at, expires_at, read_count
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 0)
ON CONFLICT (tier, name) DO UPDATE SET
    description = excluded.description,
    body = excluded.body,
    tags = excluded.tags,
    refs = excluded.refs,
    priority = excluded.priority,
    load = excluded.load,
    source = excluded.source,
    updated_at = excluded.updated_at,
    verified_at = excluded.verified_at,
    expires_at = excluded.expires_at
RETURNING id
"""

MOVE = """
UPDATE memories_memory SET
    project_id = %s, description = %s, body = %s, tags = %s, refs = %s, priority = %s,
    load = %s, source = %s, updated_at = %s, verified_at = %s, expires_at = %s
WHERE id = %s
"""

UNSET = ANY_TIER  # an argument left out: keep what is there / find the name in any tier


@dataclass
class WriteResult:
    memory: Memory
    created: bool
    notes: list[str] = field(default_factory=list)
    moved_from: str | None = None  # the tier a move left, in words

    @property
    def tier_words(self) -> str:
        return tiers.label(self.memory.project_name)


@dataclass
class _State:
    description: str
    body: str
    tags: list
    references: list
    priority: int
    load: str
    source: str
    expires_at: dt.datetime | None
    verified_at: dt.datetime


def _db(moment):
    return None if moment is None else connection.ops.adapt_datetimefield_value(moment)


def _clash_across_tiers(name: str, project_id: int | None, exclude_id: int | None) -> str | None:
    """The tier that would share the name with this one, against the cross-tier rule."""
    others = Memory.objects.filter(name=name).select_related("project")
    if exclude_id is not None:
        others = others.exclude(id=exclude_id)
    others = others.filter(project__isnull=project_id is not None)
    other = others.first()
    if other is None:
        return None
    return tiers.noun(other.project_name)


def refuse_name_clash(
    name: str,
    *,
    target_id: int | None,
    target_project: str | None,
    exclude_id: int | None,
    same_tier: bool = True,
) -> None:
    """Refuse a name the target tier already holds (when `same_tier`), or one a tier on
    the other side of the global/project line holds."""
    if same_tier:
        holders = Memory.objects.filter(tier=target_id or GLOBAL_TIER, name=name)
        if exclude_id is not None:
            holders = holders.exclude(id=exclude_id)
        if holders.exists():
            raise NameClash(
                f"'{tiers.noun(target_project)}' already holds a memory named "
                f"'{name}'; choose another name or delete that one first.",
                name=name,
                project=target_project,
            )
    other = _clash_across_tiers(name, target_id, exclude_id)
    if other is not None:
        raise NameClash(
            f"'{name}' is already a memory of {other}, and a global name is never "
            f"also a project's: choose another name for {tiers.phrase(target_project)}.",
            name=name,
            project=target_project,
        )


def _near_duplicate(description: str, tier: int, exclude_id: int | None) -> Memory | None:
    """A memory of the same band whose description says nearly the same thing.

    Candidates come from the search index: descriptions holding all but one of this one's
    six longest words other than stopwords (ranking every description that shares any word
    would score most of the index at 100,000 memories), then compared word for word.
    """
    words = [
        w for w in dict.fromkeys(re.findall(r"\w+", description.lower())) if w not in STOPWORDS
    ]
    if not words:
        return None
    key = sorted(words, key=len, reverse=True)[:6]
    if len(key) < 4:
        word_sets = [key]
    else:
        word_sets = [[w for j, w in enumerate(key) if j != i] for i in range(len(key))]
    sql, params = engine.of(connection).statements.description_matches(word_sets, limit=200)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall() if row[0] != exclude_id]
    tiers = (GLOBAL_TIER,) if tier == GLOBAL_TIER else (GLOBAL_TIER, tier)
    candidates = Memory.objects.filter(id__in=ids, tier__in=tiers).values_list("id", "description")
    best_id = similarity.closest(description, candidates.order_by("id"))
    if best_id is None:
        return None
    return Memory.objects.select_related("project").get(id=best_id)


def write(
    name: str,
    *,
    project=UNSET,
    description=None,
    body=None,
    tags=None,
    references=None,
    priority=None,
    load=None,
    source=None,
    expires=None,
    verified: bool = False,
    move_to=UNSET,
    if_match: str | None = None,
    expect_body: str | None = None,
    must_create: bool = False,
    restoring: bool = False,
) -> WriteResult:
    """Create or update the memory `name` in the tier `project` addresses.

    None (or a blank) keeps what is there; body="" and expires="" clear; [] clears a list.
    `project` UNSET finds the name in whichever tier holds it (the global tier for a new
    memory); `move_to` (None for the global tier) moves it, keeping everything else.
    `must_create` refuses a name the tier already holds instead of updating that memory.
    `restoring` puts back a recorded version (memories.history_doors): a blank source then
    clears it, as "" clears body and expiry.
    """
    name = f.name(name)
    description = f.one_line(description, "description")
    body = f.body(body)
    tags = f.tags(tags)
    references = f.references(references)
    priority = f.priority(priority)
    load = f.load(load)
    source = "" if restoring and source == "" else f.one_line(source, "source")
    expires = f.expires(expires)
    if not isinstance(verified, bool):
        raise InvalidField("verified", "verified is true or false.")
    if move_to is not UNSET and move_to is not None:
        move_to = f.project_name(move_to)

    with transaction.atomic():
        now = timezone.now()
        try:
            existing = locate(name, project)
        except MemoryNotFound:
            existing = None
        if existing is None:
            target_project = move_to if move_to is not UNSET else project
            target_project = None if target_project is UNSET else target_project
        else:
            target_project = existing.project_name if move_to is UNSET else move_to
        target = Project.objects.named(target_project) if target_project is not None else None
        target_id = target.id if target else None
        target_tier = target_id or GLOBAL_TIER

        if existing is not None and must_create:
            raise NameClash(
                f"'{tiers.noun(existing.project_name)}' already holds a memory named '{name}'; "
                "choose another name, or open that one to edit it.",
                name=name,
                project=existing.project_name,
            )
        if existing is not None:
            if if_match is not None and if_match.strip() not in ("*", existing.etag):
                raise PreconditionFailed(name, existing.etag)
            if expect_body is not None and existing.body != expect_body:
                raise StaleBody(name, existing.body)
        elif if_match is not None and if_match.strip() != "*":
            raise PreconditionFailed(name, "")

        if existing is None:
            if description is None:
                raise InvalidField("description", "A new memory needs a description.")
            state = _State(
                description=description,
                body=body or "",
                tags=tags or [],
                references=references or [],
                priority=f.DEFAULT_PRIORITY if priority is None else priority,
                load=load or f.DEFAULT_LOAD,
                source=source or "",
                expires_at=expires or None,
                verified_at=now,
            )
        else:
            state = _State(
                description=existing.description if description is None else description,
                body=existing.body if body is None else body,
                tags=existing.tags if tags is None else tags,
                references=existing.references if references is None else references,
                priority=existing.priority if priority is None else priority,
                load=existing.load if load is None else load,
                source=existing.source if source is None else source,
                expires_at=existing.expires_at if expires is None else (expires or None),
                verified_at=now if verified else existing.verified_at,
            )

        moving = existing is not None and existing.tier != target_tier
        if existing is None or moving:
            refuse_name_clash(
                name,
                target_id=target_id,
                target_project=target_project,
                exclude_id=existing.id if existing else None,
                same_tier=moving,
            )

        before = []
        if existing is not None:
            before.append(InlineContribution.of_memory(existing, now))
        after = [
            InlineContribution.of(
                memory_id=existing.id if existing else None,
                name=name,
                project=target_project,
                tier=target_tier,
                load=state.load,
                body=state.body,
                expires_at=state.expires_at,
                now=now,
            )
        ]
        budget.refuse_if_past_budget(before, after, now)

        values = [
            state.description,
            state.body,
            json.dumps(state.tags, ensure_ascii=False),
            json.dumps(state.references, ensure_ascii=False),
            state.priority,
            state.load,
            state.source,
        ]
        try:
            with connection.cursor() as cursor:
                if moving:
                    cursor.execute(
                        MOVE,
                        [
                            target_id,
                            *values,
                            _db(now),
                            _db(state.verified_at),
                            _db(state.expires_at),
                            existing.id,
                        ],
                    )
                    memory_id = existing.id
                else:
                    cursor.execute(
                        UPSERT,
                        [
                            name,
                            target_id,
                            *values,
                            _db(now),
                            _db(now),
                            _db(state.verified_at),
                            _db(state.expires_at),
                        ],
                    )
                    memory_id = cursor.fetchone()[0]
        except IntegrityError as error:
            raise NameClash(
                f"'{name}' clashes with another memory's name: choose another name.",
                name=name,
                project=target_project,
            ) from error
        memory = Memory.objects.select_related("project").get(id=memory_id)
        action = history.CREATE if existing is None else history.UPDATE
        history.record(history.MOVE if moving else action, before=existing, after=memory)

    notes = _notes(memory, existing, expires, now)
    return WriteResult(
        memory=memory,
        created=existing is None,
        notes=notes,
        moved_from=tiers.label(existing.project_name) if moving else None,
    )


def _notes(memory: Memory, existing: Memory | None, expires, now) -> list[str]:
    notes = []
    if len(memory.description) > f.LONG_DESCRIPTION:
        notes.append(
            f"The description runs to {len(memory.description)} characters. The index lists "
            "it every turn, so it spends the budget of several entries: keep the fact there "
            "and the detail in the body."
        )
    twin = _near_duplicate(memory.description, memory.tier, memory.id)
    if twin is not None:
        notes.append(
            f"'{twin.name}' already says something very similar. If this is the same fact, "
            f"write to '{twin.name}' instead and delete '{memory.name}'. Two near-copies both "
            "stay in the index for ever and neither supersedes the other."
        )
    if existing is not None and expires is None and memory.is_expired(now):
        notes.append(
            f"'{memory.name}' has expired and stays expired: it is out of the index and the "
            "inline band until its expiry is moved or cleared."
        )
    return notes


def move(name: str, *, project=UNSET, to) -> WriteResult:
    """Re-file a memory in another tier (None: the global tier), keeping everything else."""
    with transaction.atomic():
        locate(name, project)
        return write(name, project=project, move_to=to)


@dataclass
class EditResult:
    memory: Memory
    replacements: int
    context: str  # the lines around the change


def edit(
    name: str,
    *,
    project=UNSET,
    old_string,
    new_string,
    replace_all: bool = False,
    verified: bool = False,
    if_match: str | None = None,
) -> EditResult:
    """Replace old_string, found exactly once (or everywhere with replace_all), in the body."""
    if not isinstance(old_string, str) or old_string == "":
        raise InvalidField("old_string", "old_string is the non-empty text to replace.")
    if not isinstance(new_string, str):
        raise InvalidField("new_string", "new_string is text (empty to delete).")
    if not isinstance(replace_all, bool):
        raise InvalidField("replace_all", "replace_all is true or false.")
    with transaction.atomic():
        memory = locate(name, project)
        if if_match is not None and if_match.strip() not in ("*", memory.etag):
            raise PreconditionFailed(name, memory.etag)
        count = memory.body.count(old_string)
        if count == 0:
            raise EditMismatch(f"old_string is not in the body of '{name}'.", matches=0)
        if count > 1 and not replace_all:
            raise EditMismatch(
                f"old_string occurs {count} times in the body of '{name}'; give more of the "
                "surrounding text, or set replace_all.",
                matches=count,
            )
        start = memory.body.index(old_string)
        new_body = memory.body.replace(old_string, new_string)
        with history.recorded_as(history.EDIT):
            result = write(
                name,
                project=memory.project_name,
                body=new_body,
                verified=verified,
                expect_body=memory.body,
            )
    return EditResult(
        memory=result.memory,
        replacements=count,
        context=_context(new_body, start, len(new_string)),
    )


def _context(body: str, start: int, length: int, lines: int = 2) -> str:
    line_start = body.count("\n", 0, start)
    line_end = body.count("\n", 0, start + length)
    all_lines = body.split("\n")
    return "\n".join(all_lines[max(line_start - lines, 0) : line_end + lines + 1])


@dataclass
class DeleteResult:
    name: str
    project: str | None
    referenced_by: list[Memory]


def delete(name: str, *, project=UNSET, if_match: str | None = None) -> DeleteResult:
    """Delete a memory; the memories still citing it keep their references, as markers."""
    with transaction.atomic():
        memory = locate(name, project)
        if if_match is not None and if_match.strip() not in ("*", memory.etag):
            raise PreconditionFailed(name, memory.etag)
        citing = referenced_by(memory)
        project_name = memory.project_name
        history.record(history.DELETE, before=memory)
        Memory.objects.filter(id=memory.id).delete()
    return DeleteResult(name=name, project=project_name, referenced_by=citing)


@dataclass
class ReadResult:
    memory: Memory
    text: str
    offset: int
    next_offset: int | None
    caption: str


def read(name: str, *, project=UNSET, offset: int = 0) -> ReadResult:
    """The agent's read: the only door that counts a read. Pages of 16,000 characters."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidField("offset", "offset is a character position, 0 or more.")
    with transaction.atomic():
        memory = locate(name, project)
        Memory.objects.filter(id=memory.id).update(read_count=F("read_count") + 1)
        memory.refresh_from_db(fields=["read_count"])
    text = memory.body[offset : offset + READ_PAGE_CHARS]
    end = offset + len(text)
    return ReadResult(
        memory=memory,
        text=text,
        offset=offset,
        next_offset=end if end < len(memory.body) else None,
        caption=read_caption(memory),
    )


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
    """The entry with every field as the write door would store it; InvalidField otherwise."""
    description = f.one_line(entry.description, "description")
    if description is None:
        raise InvalidField("description", "A memory needs a description.")
    read_count = entry.read_count
    if isinstance(read_count, bool) or not isinstance(read_count, int) or read_count < 0:
        raise InvalidField("read_count", "The read_count is a whole number, 0 or more.")
    if read_count > 2_147_483_647:
        raise InvalidField("read_count", "The read_count is at most 2147483647.")
    created = _aware(entry.created_at, "created")
    expires = f.expires(entry.expires_at)
    return ImportEntry(
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
    )


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


IMPORT_INSERT = """
INSERT INTO memories_memory (
    name, project_id, description, body, tags, refs, priority, load, source,
    created_at, updated_at, verified_at, expires_at, read_count
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
"""

# Only an import assigns created_at on an existing row: it restores the snapshot's stamp.
IMPORT_OVERWRITE = """
UPDATE memories_memory SET
    description = %s, body = %s, tags = %s, refs = %s, priority = %s, load = %s, source = %s,
    created_at = %s, updated_at = %s, verified_at = %s, expires_at = %s, read_count = %s
WHERE id = %s
"""

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
            values = [
                e.description,
                e.body,
                json.dumps(e.tags, ensure_ascii=False),
                json.dumps(e.references, ensure_ascii=False),
                e.priority,
                e.load,
                e.source,
            ]
            dates = [_db(e.created_at), _db(now), _db(e.verified_at), _db(e.expires_at)]
            if p.action == OVERWRITE:
                updates.append([*values, *dates, e.read_count, p.existing_id])
            else:
                inserts.append([e.name, p.project_id, *values, *dates, e.read_count])
        with connection.cursor() as cursor:
            for statement, rows in ((IMPORT_OVERWRITE, updates), (IMPORT_INSERT, inserts)):
                for start in range(0, len(rows), IMPORT_BATCH):
                    batch = rows[start : start + IMPORT_BATCH]
                    cursor.executemany(statement, batch)
                    if progress is not None:
                        progress(len(batch))
        history.record_import([(p.entry.name, p.project_id) for p in plan.entries], overwritten)
    return ImportResult(
        added=[p.entry for p in plan.added], overwritten=[p.entry for p in plan.overwritten]
    )


BULK_LIMIT = 1000


@dataclass
class BulkRefusal:
    memory: Memory
    error: DomainError


@dataclass
class BulkResult:
    """What a bulk action did: every memory changed, or (when any was refused) none."""

    targets: list[Memory]
    outcomes: list = field(default_factory=list)  # each door's result, in index order
    refused: list[BulkRefusal] = field(default_factory=list)
    missing: int = 0  # ids asked for that no longer name a memory

    @property
    def applied(self) -> bool:
        return not self.refused


def _bulk(ids, change, summary: str) -> BulkResult:
    """Apply one single-memory door to each memory, in index order, in ONE transaction.

    All or nothing. Every memory is tried, each in its own savepoint, so each refusal is known
    with its row, and a later row is measured as if the earlier ones had landed (the budget
    of a band fills up in index order, as the agent reads it). If any row is refused, the
    whole batch is rolled back and every refusal reported; nothing of it lands. What lands is
    one change set of the history, `summary` naming it, to be inspected and undone whole.
    """
    ids = list(dict.fromkeys(ids))
    if not ids:
        raise InvalidField("id", "Select at least one memory.")
    if len(ids) > BULK_LIMIT:
        raise InvalidField(
            "id",
            f"{len(ids):,} memories were selected; a bulk action takes at most "
            f"{BULK_LIMIT:,} at a time: narrow the filters.",
        )
    with transaction.atomic():
        targets = memories_by_id(ids)
        result = BulkResult(targets=targets, missing=len(ids) - len(targets))
        noun = "memory" if len(targets) == 1 else "memories"
        with history.change_set(f"{summary} on {len(targets)} {noun}", door=history.BULK):
            for memory in targets:
                try:
                    with transaction.atomic():
                        result.outcomes.append(change(memory))
                except DomainError as error:
                    result.refused.append(BulkRefusal(memory, error))
        if result.refused:
            transaction.set_rollback(True)
            result.outcomes = []
    return result


def _tier_of(memory: Memory) -> str | None:
    return memory.project_name


def bulk_set_priority(ids, priority) -> BulkResult:
    priority = f.priority(priority)
    if priority is None:
        raise InvalidField("priority", "Give the priority to set.")
    return _bulk(
        ids,
        lambda m: write(m.name, project=_tier_of(m), priority=priority),
        f"Set priority {priority}",
    )


def bulk_shift_priority(ids, by) -> BulkResult:
    """Add `by` to each priority, held within 0 (most important) and 100."""
    if isinstance(by, bool) or not isinstance(by, int):
        raise InvalidField("shift", "Shift the priority by a whole number.")

    def shift(memory: Memory) -> WriteResult:
        moved = min(max(memory.priority + by, f.PRIORITY_MIN), f.PRIORITY_MAX)
        return write(memory.name, project=_tier_of(memory), priority=moved)

    return _bulk(ids, shift, f"Shift priority by {by:+d}")


def bulk_set_load(ids, load) -> BulkResult:
    load = f.load(load)
    if load is None:
        raise InvalidField("load", "Give the load to set: inline, index or search.")
    return _bulk(ids, lambda m: write(m.name, project=_tier_of(m), load=load), f"Set load {load}")


def bulk_verify(ids) -> BulkResult:
    return _bulk(ids, lambda m: write(m.name, project=_tier_of(m), verified=True), "Verify")


def bulk_move(ids, to) -> BulkResult:
    """Re-file each memory in the tier `to` (None: the global tier)."""
    if to is not None:
        Project.objects.named(f.project_name(to))
    return _bulk(
        ids, lambda m: move(m.name, project=_tier_of(m), to=to), f"Move to {tiers.noun(to)}"
    )


def bulk_delete(ids) -> BulkResult:
    """Delete each memory; the outcomes name who still references each one."""
    return _bulk(ids, lambda m: delete(m.name, project=_tier_of(m)), "Delete")
