"""The doors of one memory: write (create, update, move), move, edit, delete and read, from a
page, the API or a command. The bulk doors (memories.writes.bulk) apply these to many
memories; the import door (memories.writes.imports) holds a snapshot to the same rules.

Each door validates its input, runs its read-modify-write inside one atomic() block (a
BEGIN IMMEDIATE transaction, so two writers never interleave a read and a write), enforces
the tier, name and budget rules, and raises a typed DomainError that lands nothing.
"""

import contextlib
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory
from memories.reads import budget, meaning
from memories.reads.backlinks import referenced_by
from memories.reads.lookup import locate
from memories.rules import fields as f
from memories.rules import reach, secrets, tiers, versions
from memories.rules.budget import InlineContribution
from memories.rules.captions import read_caption
from memories.rules.errors import (
    AlreadyExists,
    EditMismatch,
    InvalidField,
    MemoryNotFound,
    NameClash,
    NameTaken,
    NothingToMatch,
    PreconditionFailed,
    StaleBody,
)
from memories.rules.tiers import ANY_TIER
from memories.writes import history, row_codec, vectors, wordings
from projects.models import Project

READ_PAGE_CHARS = 16_000

# created_at appears in the VALUES of a new row and nowhere in DO UPDATE: the statement
# itself keeps the first stamp, whatever a door passes on a later write.
UPSERT_COLUMNS = ("name", "project_id", *row_codec.CONTENT, *row_codec.STAMPS, "superseded_by")
_REWRITTEN = (*row_codec.CONTENT, "updated_at", "verified_at", "expires_at", "superseded_by")
UPSERT = (
    row_codec.insert(UPSERT_COLUMNS, unread=True)
    + " ON CONFLICT (tier, name) DO UPDATE SET "
    + ", ".join(f"{column} = excluded.{column}" for column in _REWRITTEN)
    + " RETURNING id"
)
MOVE, MOVE_COLUMNS = row_codec.update(("project_id", *_REWRITTEN))
SUPERSEDE, SUPERSEDE_COLUMNS = row_codec.update(("superseded_by", "expires_at", "updated_at"))

UNSET = ANY_TIER  # an argument left out: keep what is there / find the name in any tier
# The fields write() takes under the names a PUT body or a tool's arguments give them; each
# door reads expires and verified in its own way.
FIELDS = ("description", "body", "tags", "references", "priority", "load", "source")


def fields_given(data: dict) -> dict:
    """The FIELDS of a request's data and the memory it supersedes, None where one is left
    out (write() keeps it)."""
    return {key: data.get(key) for key in (*FIELDS, "supersedes")}


@dataclass
class WriteResult:
    memory: Memory
    created: bool
    moved_from: str | None = None  # the tier a move left, in a sentence (tiers.phrase)
    changed: bool = True  # False: the memory held what was given already; nothing was written
    noted: Callable[[], list[str]] = field(default=list, repr=False, compare=False)

    @cached_property
    def notes(self) -> list[str]:
        """What the writer should know of the write, in sentences. Drawn when first asked:
        the near-copy note searches the band by meaning, which a caller that shows no notes
        (a bulk action, an import, the demo seed) would pay for on every memory."""
        return self.noted()

    @property
    def moved(self) -> str | None:
        """The move in words, as the history tells it: "Moved from project 'legacy' to the
        global tier." None when the write kept the memory where it was."""
        if self.moved_from is None:
            return None
        return f"Moved from {self.moved_from} to {tiers.phrase(self.memory.project_name)}."


@dataclass
class _Given:
    """The fields a write was given, each through its rule; None where one was left out."""

    description: str | None
    body: str | None
    tags: list | None
    references: list | None
    priority: int | None
    load: str | None
    source: str | None
    expires: dt.datetime | str | None  # "": clear the expiry
    verified: bool
    secrets: list  # the credentials in the fields given, which an admin allowed


@dataclass
class _State:
    """The fields of the memory as a write leaves it."""

    description: str
    body: str
    tags: list
    references: list
    priority: int
    load: str
    source: str
    expires_at: dt.datetime | None
    verified_at: dt.datetime
    superseded_by: str | None


def _clash_across_tiers(name: str, project_id: int | None, exclude_id: int | None) -> str | None:
    """The tier that would share the name with this one, against the cross-tier rule."""
    others = Memory.every.filter(name=name).select_related("project")
    if exclude_id is not None:
        others = others.exclude(id=exclude_id)
    others = others.filter(project__isnull=project_id is not None)
    other = others.first()
    if other is None:
        return None
    if not reach.current().sees(other.tier):
        return "a tier outside your reach"
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
        holders = Memory.every.filter(tier=target_id or GLOBAL_TIER, name=name)
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
    if_none_match: str | None = None,
    stamps: dict | None = None,
    expect_body: str | None = None,
    must_create: bool = False,
    restoring: bool = False,
    allow_secret: bool = False,
    supersedes=None,
) -> WriteResult:
    """Create or update the memory `name` in the tier `project` addresses.

    None (or a blank) keeps what is there; body="" and expires="" clear; [] clears a list.
    `project` UNSET finds the name in whichever tier holds it (the global tier for a new
    memory); `move_to` (None for the global tier) moves it, keeping everything else.
    `must_create` refuses a name the tier already holds instead of updating that memory.
    `if_match` and `if_none_match` are the headers of that name (memories.rules.versions).
    `stamps` are read-only stamps (created_at, verified_at) a fetched memory carries back:
    each must be the memory's own, as none can be set.
    `restoring` puts back a recorded version (memories.writes.undo): a blank source then
    clears it, as "" clears body and expiry.
    A description, body, source or reference holding a credential is refused unless
    `allow_secret`, which the caller grants an admin alone (secrets.allowance).
    `supersedes` names a memory of the tier the memory lands in that this one replaces: it
    is marked superseded and leaves the band and the index (_supersede), in one change set
    with the write, undone as one.
    """
    name = f.name(name)
    supersedes = None if supersedes in (None, "") else f.name(supersedes, field="supersedes")
    given = _validated(
        description=description,
        body=body,
        tags=tags,
        references=references,
        priority=priority,
        load=load,
        source=source,
        expires=expires,
        verified=verified,
        restoring=restoring,
        allow_secret=allow_secret,
    )
    if move_to is not UNSET and move_to is not None:
        move_to = f.project_name(move_to)
    stamps = stamps or {}
    for stamp, value in stamps.items():
        if not isinstance(value, str | None):
            raise InvalidField(stamp, f"{stamp} is an RFC 3339 timestamp, or null.")

    grouped = (
        history.change_set(f"'{name}' supersedes '{supersedes}'")
        if supersedes
        else contextlib.nullcontext()
    )
    with grouped, transaction.atomic():
        now = timezone.now()
        existing, target_project, target_id = _existing_and_target(name, project, move_to)
        if existing is not None:
            reach.refuse_change(existing.tier, tiers.phrase(existing.project_name))
        reach.refuse_change(target_id or GLOBAL_TIER, tiers.phrase(target_project))
        _refuse_unmet_preconditions(
            name,
            existing,
            target_project,
            must_create=must_create,
            if_match=if_match,
            if_none_match=if_none_match,
            expect_body=expect_body,
        )
        _refuse_set_stamps(existing, stamps)
        state = _state_after(existing, given, now)
        old = (
            _superseded(supersedes, name, state, target_project, target_id) if supersedes else None
        )
        moving = existing is not None and existing.tier != (target_id or GLOBAL_TIER)
        if existing is not None and not moving and _holds(existing, state):
            if old is None:
                return WriteResult(
                    memory=existing,
                    created=False,
                    changed=False,
                    noted=lambda: [f"Nothing changed: '{name}' already holds what was given."],
                )
            memory = existing
        else:
            if existing is None or moving:
                refuse_name_clash(
                    name,
                    target_id=target_id,
                    target_project=target_project,
                    exclude_id=existing.id if existing else None,
                    same_tier=moving,
                )
            _refuse_past_budget(
                name, existing, target_project, target_id or GLOBAL_TIER, state, now, old
            )
            memory = _store(name, existing, target_project, target_id, state, now, moving=moving)
            vectors.keep_written(memory, existing)
            wordings.keep_written(memory, existing)
            _record_revision(existing, memory, moving=moving, allowed=given.secrets)
        if old is not None:
            _supersede(old, memory, now)

    return WriteResult(
        memory=memory,
        created=existing is None,
        moved_from=tiers.phrase(existing.project_name) if moving else None,
        noted=lambda: _notes(memory, existing, given.expires, now, old),
    )


def _superseded(
    old_name: str, name: str, state: _State, target_project: str | None, target_id: int | None
) -> Memory:
    """The memory a write supersedes: one of the tier the memory lands in, other than itself,
    by a memory that is not itself superseded (so a chain of corrections never loops)."""
    if old_name == name:
        raise InvalidField("supersedes", f"'{name}' cannot supersede itself.")
    if state.superseded_by:
        raise InvalidField(
            "supersedes",
            f"'{name}' is itself superseded by '{state.superseded_by}': write the correction "
            f"to '{state.superseded_by}' instead.",
        )
    old = (
        Memory.objects.select_related("project")
        .filter(tier=target_id or GLOBAL_TIER, name=old_name)
        .first()
    )
    if old is None:
        raise InvalidField(
            "supersedes",
            f"There is no memory named '{old_name}' in {tiers.phrase(target_project)} to "
            "supersede: a memory supersedes one of its own tier.",
        )
    return old


def _supersede(old: Memory, successor: Memory, now: dt.datetime) -> None:
    """Mark `old` superseded by `successor`: it names its successor, and its force ends now
    through its expiry (one already past is kept), so the band, the index, the budget and
    their tallies leave it out as they leave out an expired memory, and a revision's snapshot
    tells both. Its own revision, in the write's change set."""
    expired = old.is_expired(now)
    if old.superseded_by == successor.name and expired:
        return
    row = {
        "id": old.id,
        "superseded_by": successor.name,
        "expires_at": old.expires_at if expired else now,
        "updated_at": now,
    }
    with connection.cursor() as cursor:
        cursor.execute(SUPERSEDE, row_codec.bound(row, SUPERSEDE_COLUMNS))
    marked = Memory.objects.select_related("project").get(id=old.id)
    said = f"Superseded by '{successor.name}'."
    reason = "; ".join(filter(None, (history.current().reason, said)))[: history.REASON_MAX]
    with history.acting(reason=reason):
        history.record(history.UPDATE, before=old, after=marked)


def _validated(
    *,
    description,
    body,
    tags,
    references,
    priority,
    load,
    source,
    expires,
    verified,
    restoring,
    allow_secret,
) -> _Given:
    """Each field given to a write through its rule, before the transaction opens."""
    given = _Given(
        description=f.description(description),
        body=f.body(body),
        tags=f.tags(tags),
        references=f.references(references),
        priority=f.priority(priority),
        load=f.load(load),
        source="" if restoring and source == "" else f.one_line(source, "source"),
        expires=f.expires(expires),
        verified=verified,
        secrets=[],
    )
    if not isinstance(verified, bool):
        raise InvalidField("verified", "verified is true or false.")
    given.secrets = secrets.check(vars(given), allowed=allow_secret)
    return given


def _existing_and_target(
    name: str, project, move_to
) -> tuple[Memory | None, str | None, int | None]:
    """The memory the write addresses (None: a new one), and the tier it lands in, by project
    name and id (None, None: the global tier).

    An existing memory stays in its tier unless `move_to` names another; a new one lands in
    `move_to`, else in the tier `project` names, else in the global tier. An unknown project
    is refused here.
    """
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
    return existing, target_project, target.id if target else None


def _refuse_unmet_preconditions(
    name: str,
    existing: Memory | None,
    target_project: str | None,
    *,
    must_create: bool,
    if_match: str | None,
    if_none_match: str | None,
    expect_body: str | None,
) -> None:
    """must_create, If-Match, If-None-Match and the body the caller last read, each held
    against what the tier holds now."""
    etag = None if existing is None else existing.etag
    if if_match is not None and not versions.if_match(if_match, etag):
        if existing is None:
            raise NothingToMatch(name, target_project)
        raise PreconditionFailed(name, etag)
    if if_none_match is not None and not versions.if_none_match(if_none_match, etag):
        raise AlreadyExists(name, existing.project_name, etag)
    if existing is None:
        return
    if must_create:
        raise NameTaken(
            f"'{tiers.noun(existing.project_name)}' already holds a memory named '{name}'; "
            "choose another name, or open that one to edit it.",
            name=name,
            project=existing.project_name,
        )
    if expect_body is not None and existing.body != expect_body:
        raise StaleBody(name, existing.body)


def _refuse_set_stamps(existing: Memory | None, stamps: dict) -> None:
    """A stamp sent with a write is the memory's own (a fetched memory sent back), never a
    new value: created_at is stamped once, verified_at only by `verified`."""
    for stamp, value in stamps.items():
        if value is None:
            continue
        if existing is not None and f.same_instant(value, getattr(existing, stamp)):
            continue
        how = (
            "stamped when the memory is created"
            if stamp == "created_at"
            else 'stamped now by "verified": true'
        )
        raise InvalidField(
            stamp,
            f"{stamp} cannot be set: it is {how}. Leave it out, or send the value the memory "
            "holds.",
        )


def _state_after(existing: Memory | None, given: _Given, now: dt.datetime) -> _State:
    """The memory as the write leaves it: a field left out keeps what is stored (a new
    memory's default); "" clears body and expiry, [] a list; only `verified` moves
    verified_at, which a new memory takes from now."""
    if existing is None:
        if given.description is None:
            raise InvalidField("description", "A new memory needs a description.")
        return _State(
            description=given.description,
            body=given.body or "",
            tags=given.tags or [],
            references=given.references or [],
            priority=f.DEFAULT_PRIORITY if given.priority is None else given.priority,
            load=given.load or f.DEFAULT_LOAD,
            source=given.source or "",
            expires_at=given.expires or None,
            verified_at=now,
            superseded_by=None,
        )
    expires_at = existing.expires_at if given.expires is None else (given.expires or None)
    return _State(
        description=existing.description if given.description is None else given.description,
        body=existing.body if given.body is None else given.body,
        tags=existing.tags if given.tags is None else given.tags,
        references=existing.references if given.references is None else given.references,
        priority=existing.priority if given.priority is None else given.priority,
        load=existing.load if given.load is None else given.load,
        source=existing.source if given.source is None else given.source,
        expires_at=expires_at,
        verified_at=now if given.verified else existing.verified_at,
        # A superseded memory whose expiry a write moves or clears is in force again.
        superseded_by=existing.superseded_by if expires_at == existing.expires_at else None,
    )


def _holds(memory: Memory, state: _State) -> bool:
    """Whether the memory already is what the write would leave: a change that changes
    nothing is no change (no write, no updated_at, no revision)."""
    return all(
        getattr(memory, name) == getattr(state, name)
        for name in (*FIELDS, "expires_at", "verified_at", "superseded_by")
    )


def _refuse_past_budget(
    name: str,
    existing: Memory | None,
    target_project: str | None,
    target_tier: int,
    state: _State,
    now: dt.datetime,
    superseded: Memory | None = None,
) -> None:
    """The inline band with this write landed, held against the budget and the band as it is
    (a write that shrinks the band or leaves it alone always goes through). A memory the
    write supersedes leaves the band with it."""
    before = []
    if existing is not None:
        before.append(InlineContribution.of_memory(existing, now))
    leaving = []
    if superseded is not None:
        spent = InlineContribution.of_memory(superseded, now)
        before.append(spent)
        leaving.append(replace(spent, bytes=0))
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
        ),
        *leaving,
    ]
    budget.refuse_if_past_budget(before, after, now)


def _store(
    name: str,
    existing: Memory | None,
    target_project: str | None,
    target_id: int | None,
    state: _State,
    now: dt.datetime,
    *,
    moving: bool,
) -> Memory:
    """The row written, and read back: a move updates it in its new tier by id; any other
    write is the upsert, which never assigns created_at on update. A name the store's own
    constraints refuse (a writer beside this one took it) is a NameClash."""
    row = {
        **row_codec.content(vars(state)),
        "id": existing.id if existing else None,
        "name": name,
        "project_id": target_id,
        "created_at": now,
        "updated_at": now,
        "verified_at": state.verified_at,
        "expires_at": state.expires_at,
        "superseded_by": state.superseded_by,
    }
    try:
        with connection.cursor() as cursor:
            if moving:
                cursor.execute(MOVE, row_codec.bound(row, MOVE_COLUMNS))
                memory_id = existing.id
            else:
                cursor.execute(UPSERT, row_codec.bound(row, UPSERT_COLUMNS))
                memory_id = cursor.fetchone()[0]
    except IntegrityError as error:
        raise NameClash(
            f"'{name}' clashes with another memory's name: choose another name.",
            name=name,
            project=target_project,
        ) from error
    return Memory.objects.select_related("project").get(id=memory_id)


def _record_revision(
    existing: Memory | None, memory: Memory, *, moving: bool, allowed: list
) -> None:
    """One revision in the write's own transaction: a create, an update or a move; the
    credentials an admin allowed, named (never shown) in its reason."""
    action = history.CREATE if existing is None else history.UPDATE
    reason = history.current().reason
    if allowed:
        joined = "; ".join(filter(None, (reason, secrets.allowed_reason(allowed))))
        reason = joined[: history.REASON_MAX]
    with history.acting(reason=reason):
        history.record(history.MOVE if moving else action, before=existing, after=memory)


def _notes(memory: Memory, existing: Memory | None, expires, now, old=None) -> list[str]:
    notes = []
    if old is not None:
        notes.append(
            f"'{old.name}' is superseded by '{memory.name}': it has left the index and the "
            "inline band, and search still finds it, marked superseded."
        )
    if len(memory.description) > f.LONG_DESCRIPTION:
        notes.append(
            f"The description runs to {len(memory.description)} characters. The index lists "
            "it every turn, so it spends the budget of several entries: keep the fact there "
            "and the detail in the body."
        )
    close = meaning.closest_in_band(memory)
    if close is not None:
        twin = close[0]
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
    changed: bool = True  # False: new_string was old_string; nothing was written


def edit(
    name: str,
    *,
    project=UNSET,
    old_string,
    new_string,
    replace_all: bool = False,
    verified: bool = False,
    if_match: str | None = None,
    allow_secret: bool = False,
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
        if if_match is not None and not versions.if_match(if_match, memory.etag):
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
                allow_secret=allow_secret,
            )
    return EditResult(
        memory=result.memory,
        replacements=count,
        context=_context(new_body, start, len(new_string)),
        changed=result.changed,
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

    def still_referenced(self) -> str:
        """The sentence naming the memories that still cite the deleted one ("" for none)."""
        if not self.referenced_by:
            return ""
        citing = ", ".join(tiers.memory_label(m.name, m.project_name) for m in self.referenced_by)
        return (
            f"Still referenced by {citing}; their references are left in place, as markers of "
            "a fact to revisit."
        )


def delete(name: str, *, project=UNSET, if_match: str | None = None) -> DeleteResult:
    """Delete a memory; the memories still citing it keep their references, as markers."""
    with transaction.atomic():
        memory = locate(name, project)
        reach.refuse_change(memory.tier, tiers.phrase(memory.project_name))
        if if_match is not None and not versions.if_match(if_match, memory.etag):
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
    offset = f.whole(offset)
    if offset is None or offset < 0:
        raise InvalidField("offset", "offset is a character position, 0 or more.")
    with transaction.atomic():
        memory = locate(name, project)
        if offset > len(memory.body):
            raise InvalidField(
                "offset",
                f"offset is past the end of the body of '{name}', which has "
                f"{len(memory.body):,} characters: give 0 to {len(memory.body):,}.",
            )
        Memory.objects.filter(id=memory.id).update(
            read_count=F("read_count") + 1, last_read_at=timezone.now()
        )
        memory.refresh_from_db(fields=["read_count", "last_read_at"])
    text = memory.body[offset : offset + READ_PAGE_CHARS]
    end = offset + len(text)
    return ReadResult(
        memory=memory,
        text=text,
        offset=offset,
        next_offset=end if end < len(memory.body) else None,
        caption=read_caption(memory),
    )
