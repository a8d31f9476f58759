"""The doors: every write to a memory, from a page, the API, a command or an import.

Each door validates its input, runs its read-modify-write inside one atomic() block (a
BEGIN IMMEDIATE transaction, so two writers never interleave a read and a write), enforces
the tier, name and budget rules, and raises a typed DomainError that lands nothing.
"""

import datetime as dt
import difflib
import json
import re
from dataclasses import dataclass, field

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from memories import budget, history
from memories import fields as f
from memories.captions import read_caption
from memories.errors import (
    DomainError,
    EditMismatch,
    InvalidField,
    MemoryNotFound,
    NameClash,
    PreconditionFailed,
    StaleBody,
)
from memories.filters import ANY_TIER
from memories.models import GLOBAL_TIER, Memory
from memories.selectors import locate, memories_by_id, project_or_refuse, referenced_by

READ_PAGE_CHARS = 16_000
NEAR_DUPLICATE_RATIO = 0.8
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
        return "global" if self.memory.project_id is None else self.memory.project_name


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
    return other.project_name or "the global tier"


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
                f"'{target_project or 'the global tier'}' already holds a memory named "
                f"'{name}'; choose another name or delete that one first.",
                name=name,
                project=target_project,
            )
    other = _clash_across_tiers(name, target_id, exclude_id)
    if other is not None:
        where = "the global tier" if target_id is None else f"project '{target_project}'"
        raise NameClash(
            f"'{name}' is already a memory of {other}, and a global name is never "
            f"also a project's: choose another name for {where}.",
            name=name,
            project=target_project,
        )


def _near_duplicate(description: str, tier: int, exclude_id: int | None) -> Memory | None:
    """A memory of the same band whose description says nearly the same thing.

    Candidates come from the FTS index: descriptions holding all but one of this one's six
    longest words other than stopwords (ranking every description that shares any word
    would score most of the index at 100,000 memories), then compared word for word.
    """
    words = [
        w for w in dict.fromkeys(re.findall(r"\w+", description.lower())) if w not in STOPWORDS
    ]
    if not words:
        return None
    key = sorted(words, key=len, reverse=True)[:6]
    quoted = ['"' + word.replace('"', '""') + '"' for word in key]
    if len(quoted) < 4:
        match = " AND ".join(quoted)
    else:
        match = " OR ".join(
            "(" + " AND ".join(q for j, q in enumerate(quoted) if j != i) + ")"
            for i in range(len(quoted))
        )
    with connection.cursor() as cursor:
        # No join: joined, SQLite may drive the query from the memories table and probe the
        # index once per row.
        cursor.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH %s LIMIT 200",
            ["description : (" + match + ")"],
        )
        ids = [row[0] for row in cursor.fetchall() if row[0] != exclude_id]
    tiers = (GLOBAL_TIER,) if tier == GLOBAL_TIER else (GLOBAL_TIER, tier)
    wanted = " ".join(re.findall(r"\w+", description.lower()))
    best, best_ratio = None, NEAR_DUPLICATE_RATIO
    candidates = Memory.objects.filter(id__in=ids, tier__in=tiers).select_related("project")
    for candidate in candidates.order_by("id"):
        ratio = difflib.SequenceMatcher(
            None, wanted, " ".join(re.findall(r"\w+", candidate.description.lower()))
        ).ratio()
        if ratio >= best_ratio:
            best, best_ratio = candidate, ratio
    return best


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
        target = project_or_refuse(target_project) if target_project is not None else None
        target_id = target.id if target else None
        target_tier = target_id or GLOBAL_TIER

        if existing is not None and must_create:
            tier_words = existing.project_name or "the global tier"
            raise NameClash(
                f"'{tier_words}' already holds a memory named '{name}'; "
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
            before.append(
                budget.InlineContribution.of(
                    memory_id=existing.id,
                    name=existing.name,
                    project=existing.project_name,
                    tier=existing.tier,
                    load=existing.load,
                    body=existing.body,
                    expires_at=existing.expires_at,
                    now=now,
                )
            )
        after = [
            budget.InlineContribution.of(
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
        moved_from=(existing.project_name or "global") if moving else None,
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
        project_or_refuse(f.project_name(to))
    where = "the global tier" if to is None else to
    return _bulk(ids, lambda m: move(m.name, project=_tier_of(m), to=to), f"Move to {where}")


def bulk_delete(ids) -> BulkResult:
    """Delete each memory; the outcomes name who still references each one."""
    return _bulk(ids, lambda m: delete(m.name, project=_tier_of(m)), "Delete")
