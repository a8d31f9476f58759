"""The seed's five memory tools: their parameters, one call of the doors or reads each, and
the seed's result lines.

A tool answers text for the agent to read. A refusal of the domain (the inline budget, a name
clash, an unknown project, a stale body, a bad argument) is raised as the DomainError it is,
and `memadmin.mcp.server` turns it into a tool error carrying its sentence; nothing of a
refused write lands, as at every door.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace

from django.db import transaction
from django.utils import timezone

from memadmin.mcp.session import Session
from memories.models import Memory
from memories.reads import backlinks, find, history, lookup, search
from memories.reads.filters import FILTERS, Filter, MemoryFilterForm
from memories.rules import fields as f
from memories.rules import secrets, tiers
from memories.rules.captions import age, relative
from memories.rules.errors import InvalidField, MemoryNotFound, NotPermitted
from memories.rules.fields import rfc3339
from memories.rules.tiers import ANY_TIER
from memories.writes import doors

GLOBAL, PROJECT = "global", "project"
SEARCH_LIMIT = 20  # results of one memory_search unless `limit` says otherwise
SAVED = (
    "It is in your memory store from the next turn on, and `memory_search` will find it "
    "whatever the index has room to list."
)


def _text(description: str, **schema) -> dict:
    return {"type": "string", "description": description, **schema}


def _flag(description: str) -> dict:
    return {"type": "boolean", "description": description}


NAME = _text(
    "The memory's name: letters, digits, '.', '_' and '-', starting with a letter or digit.",
    maxLength=f.MEMORY_NAME_MAX,
)
TIER = {
    "type": "string",
    "enum": [GLOBAL, PROJECT],
    "description": 'One tier: "global" (every session sees it) or "project" (this session\'s '
    "project).",
}
LINES = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, dict]
    required: tuple[str, ...]
    run: Callable[[Session, dict], str]
    writes: bool = False

    def input_schema(self) -> dict:
        return {
            "type": "object",
            "properties": self.parameters,
            "required": list(self.required),
            "additionalProperties": False,
        }

    def call(self, session: Session, arguments: dict | None) -> str:
        """Run the tool on its arguments, each checked by name here and by its rule in the
        doors; a write is refused first when the session may not write."""
        arguments = arguments or {}
        unknown = sorted(set(arguments) - set(self.parameters))
        if unknown:
            listed = ", ".join(f"'{key[:100]}'" for key in unknown)
            raise InvalidField(
                unknown[0],
                f"{self.name} has no argument {listed}; it takes {', '.join(self.parameters)}.",
            )
        for key in self.required:
            if arguments.get(key) is None:
                raise InvalidField(key, f"{self.name} needs {key}.")
        if self.writes and session.write_refusal is not None:
            raise NotPermitted(session.write_refusal)
        return self.run(session, arguments)


def _tier(session: Session, value):
    """The tier a `tier` argument names in this session: ANY_TIER (absent: where the session
    looks), None (the global tier) or the session's project's name."""
    if value is None or value == "":
        return ANY_TIER
    if value == GLOBAL:
        return None
    if value == PROJECT:
        if session.project is None:
            raise InvalidField(
                "tier",
                'tier "project" needs a session on a project; this session is on no project, '
                "so its memories are global.",
            )
        return session.project.name
    raise InvalidField("tier", 'tier is "global" or "project".')


def _in_band(session: Session, name) -> Memory:
    return lookup.locate_in_band(f.name(name), session.project_name)


def _false_if_absent(value):
    return False if value is None else value


def _where(session: Session, memory: Memory) -> str:
    """' (global)' on a global memory shown to a session on a project, as the index marks it."""
    return " (global)" if session.project is not None and memory.project_id is None else ""


# memory_write ---------------------------------------------------------------------------


def memory_write(session: Session, args: dict) -> str:
    name = f.name(args["name"])
    tier = _tier(session, args.get("tier"))
    with transaction.atomic():
        try:
            existing = lookup.locate_in_band(name, session.project_name)
        except MemoryNotFound:
            existing = None
        if existing is None:
            address = session.project_name if tier is ANY_TIER else tier
            move_to = doors.UNSET
        else:
            address = existing.project_name
            move_to = doors.UNSET if tier is ANY_TIER or tier == address else tier
        result = doors.write(
            name,
            project=address,
            **doors.fields_given(args),
            expires=args.get("expires"),
            verified=_false_if_absent(args.get("verified")),
            move_to=move_to,
            allow_secret=secrets.allowance(args.get("allow_secret"), admin=session.admin),
        )
    memory = result.memory
    if not result.changed:
        return result.notes[0]
    moved = existing is not None and existing.tier != memory.tier
    where = ""
    if moved:
        where = f" in {tiers.phrase(memory.project_name)}"
    elif session.project is not None and memory.project_name is None:
        where = " in the global tier"
    line = f"Saved memory '{memory.name}'{where} (priority {memory.priority})."
    if moved:
        line += f" It moved there from {tiers.phrase(existing.project_name)}."
    return "\n\n".join([f"{line} {SAVED}", *(f"Note: {note}" for note in result.notes)])


# memory_edit ----------------------------------------------------------------------------


def memory_edit(session: Session, args: dict) -> str:
    with transaction.atomic():
        memory = _in_band(session, args["name"])
        result = doors.edit(
            memory.name,
            project=memory.project_name,
            old_string=args["old_string"],
            new_string=args["new_string"],
            replace_all=_false_if_absent(args.get("replace_all")),
            verified=_false_if_absent(args.get("verified")),
        )
    if not result.changed:
        return f"Nothing changed: new_string is old_string, so '{memory.name}' is as it was."
    count = result.replacements
    noun = "replacement" if count == 1 else "replacements"
    line = f"Edited memory '{memory.name}' ({count} {noun})."
    if args.get("verified"):
        line += " Marked it verified."
    return f"{line} The lines around the change:\n\n{result.context}"


# memory_read ----------------------------------------------------------------------------


def memory_read(session: Session, args: dict) -> str:
    memory = _in_band(session, args["name"])
    read = doors.read(memory.name, project=memory.project_name, offset=_offset(args.get("offset")))
    memory, now = read.memory, timezone.now()
    lines = [
        f"Memory '{memory.name}'{_where(session, memory)}, priority {memory.priority}, "
        f"load {memory.load}: {memory.description}",
        read.caption,
    ]
    revision = history.current_revisions([memory.id]).get(memory.id)
    if revision is not None:
        lines.append(f"Revision {revision} (a later one means it changed since).")
    if memory.superseded_by and memory.is_expired(now):
        lines.append(
            f"Superseded by '{memory.superseded_by}': no longer in force; read that one instead."
        )
    if memory.expires_at is not None and not memory.is_expired(now):
        lines.append(f"Expires {rfc3339(memory.expires_at)} ({relative(memory.expires_at, now)}).")
    if memory.source:
        lines.append(f"Source: {memory.source}")
    if memory.tags:
        lines.append(f"Tags: {', '.join(memory.tags)}")
    references = [
        ref.target + (f" ({ref.memory.description})" if ref.memory else "")
        for ref in backlinks.resolve_references(memory)
    ]
    if references:
        lines.append("References: " + "; ".join(references))
    citing = backlinks.referenced_by(memory)
    if citing:
        lines.append(
            "Referenced by: "
            + ", ".join(tiers.memory_label(m.name, m.project_name) for m in citing)
        )
    return "\n".join(lines) + "\n\n" + _page(memory, read)


def _offset(value) -> int:
    return 0 if value is None else value


def _page(memory: Memory, read: doors.ReadResult) -> str:
    """The body's page, and where it sits in the body: the continuation offset, if any."""
    total = len(memory.body)
    if total == 0:
        return "(The body is empty.)"
    if read.offset == total:
        return f"(Offset {read.offset} is the end of the body, which has {total} characters.)"
    end = read.offset + len(read.text)
    if read.next_offset is not None:
        where = (
            f"[Characters {read.offset} to {end} of {total}. To read on, call memory_read "
            f"with name '{memory.name}' and offset {read.next_offset}.]"
        )
    elif read.offset:
        where = f"[Characters {read.offset} to {end} of {total}: the end of the body.]"
    else:
        return read.text
    return f"{read.text}\n\n{where}"


# memory_search --------------------------------------------------------------------------

FORM_ARGUMENTS = {"q": "queries"}  # the filter form's names for the tool's arguments
FILTER_ARGUMENTS = [flt for flt in FILTERS if flt.in_mcp]


def _filter_argument(flt: Filter, value) -> str:
    """A filter's argument as the filter form reads its parameter."""
    if value is None:
        return ""
    if flt.argument_schema.get("type") == "boolean":
        if not isinstance(value, bool):
            raise InvalidField(flt.key, f"{flt.key} is true or false.")
        return str(value).lower()
    return value


def memory_search(session: Session, args: dict) -> str:
    queries = args.get("queries") or []
    if isinstance(queries, str):
        queries = [queries]
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise InvalidField("queries", "queries is a list of texts, read as synonyms.")
    form = MemoryFilterForm(
        {
            "q": queries,
            **{flt.key: _filter_argument(flt, args.get(flt.key)) for flt in FILTER_ARGUMENTS},
            "limit": args.get("limit") or SEARCH_LIMIT,
            "offset": args.get("offset") or 0,
        }
    )
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        name = FORM_ARGUMENTS.get(field, field)
        raise InvalidField(name, f"{name}: {errors[0]}")
    tier = _tier(session, args.get("tier"))
    question = find.Question.of(form)
    if tier is ANY_TIER:
        filters = replace(question.filters, band=session.project_name)
    else:
        filters = replace(question.filters, project=tier)
    offset = form.cleaned_data["offset"]
    page = find.Page(limit=form.cleaned_data["limit"], offset=offset)
    now = timezone.now()
    found = find.find(replace(question, filters=filters), page, now=now)
    rows = [(memory, _sense(hit) if hit else "") for memory, hit in found.with_hits()]
    lines = [found.summary + ".", *found.notes]
    if rows and (offset or offset + len(rows) < found.count):
        more = (
            f" Pass offset {offset + len(rows)} for more."
            if offset + len(rows) < found.count
            else ""
        )
        lines.append(f"Showing {offset + 1} to {offset + len(rows)}.{more}")
    revisions = history.current_revisions([memory.id for memory, _ in rows])
    entries = [
        _entry(session, memory, sense, now, revisions.get(memory.id)) for memory, sense in rows
    ]
    return "\n\n".join(["\n".join(lines), *entries]) if entries else "\n".join(lines)


def _sense(hit: search.Hit) -> str:
    if hit.scanned_terms:
        return "; found as text: " + ", ".join(hit.scanned_terms)
    return f"; matched by {hit.matched_by.replace('_', ' ')}"


def _entry(session: Session, memory: Memory, sense: str, now, revision: int | None) -> str:
    """One result: enough to act on without a read, and the revision it was found at."""
    marks = [
        f"priority {memory.priority}",
        f"recorded {age(memory.created_at, now)}",
        f"{memory.read_count} {'read' if memory.read_count == 1 else 'reads'}",
    ]
    if memory.verified_at > memory.created_at:
        marks.append("verified")
    if memory.superseded_by and memory.is_expired(now):
        marks.append(f"superseded by '{memory.superseded_by}'")
    elif memory.is_expired(now):
        marks.append("expired")
    lines = [
        f"- {memory.name}{_where(session, memory)}: {', '.join(marks)}{sense}"
        + (f" (revision {revision})" if revision is not None else ""),
        f"  {memory.description}",
    ]
    if memory.body and len(memory.body) <= search.SHORT_BODY_CHARS:
        lines.extend(f"    {line}" for line in memory.body.splitlines())
    return "\n".join(lines)


# memory_delete --------------------------------------------------------------------------


def memory_delete(session: Session, args: dict) -> str:
    with transaction.atomic():
        memory = _in_band(session, args["name"])
        result = doors.delete(memory.name, project=memory.project_name)
    line = f"Deleted memory '{result.name}' from {tiers.phrase(result.project)}."
    return " ".join(filter(None, [line, result.still_referenced()]))


TOOLS = {
    tool.name: tool
    for tool in [
        Tool(
            "memory_write",
            "Save a durable memory, or update one: filed in this session's project unless "
            'tier is "global". Omitting a field keeps what the memory has; "" clears the '
            "body or the expiry, [] clears a list. Pass verified: true when the fact was "
            "checked or newly learned.",
            {
                "name": NAME,
                "description": _text("One line: what the index lists every turn."),
                "body": _text("The full text, read with memory_read."),
                "tags": {**LINES, "description": "Labels; [] clears them."},
                "priority": {
                    "type": "integer",
                    "minimum": f.PRIORITY_MIN,
                    "maximum": f.PRIORITY_MAX,
                    "description": "Lower is more important; 5 unless given.",
                },
                "load": {
                    "type": "string",
                    "enum": list(f.LOADS),
                    "description": "inline: the body is in every turn's context, within the "
                    "inline budget; index: listed by description; search: found by "
                    "memory_search alone.",
                },
                "references": {
                    **LINES,
                    "maxItems": f.MAX_REFERENCES,
                    "description": "What it depends on, one line each: memory names, paths, "
                    "URLs, ids.",
                },
                "source": _text("One line: where the fact came from."),
                "expires": _text(
                    'When it stops applying: RFC 3339, or YYYY-MM-DD (that whole day); "" '
                    "clears it."
                ),
                "verified": _flag("The fact was verified to hold just now."),
                "supersedes": _text(
                    "The name of a memory of the same tier that this one corrects or replaces: "
                    "it leaves the index and the inline band, and memory_search still finds "
                    "it, marked superseded.",
                    maxLength=f.MEMORY_NAME_MAX,
                ),
                "tier": TIER,
                "allow_secret": _flag(
                    "Store it although it holds a credential (an API key, a token, a private "
                    "key), which is refused otherwise. An admin's session alone."
                ),
            },
            ("name",),
            memory_write,
            writes=True,
        ),
        Tool(
            "memory_edit",
            "Replace old_string, found exactly once, with new_string in a memory's body "
            "(replace_all for every occurrence; an empty new_string deletes the text). The "
            "result shows the lines around the change.",
            {
                "name": NAME,
                "old_string": _text("The exact text to replace."),
                "new_string": _text("The text to put in its place."),
                "replace_all": _flag("Replace every occurrence, not just one."),
                "verified": _flag("The fact was verified to hold just now."),
            },
            ("name", "old_string", "new_string"),
            memory_edit,
            writes=True,
        ),
        Tool(
            "memory_read",
            "Read a memory: its body in pages of 16,000 characters, when it was recorded "
            "and verified, its source, what it references and what references it. The only "
            "tool that counts a read.",
            {
                "name": NAME,
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Where to start, in characters of the body, at most its "
                    "length (a previous page gives the continuation offset).",
                },
            },
            ("name",),
            memory_read,
        ),
        Tool(
            "memory_search",
            "Search the memory store, ranked; queries is a list of synonyms, searched as one. "
            "Without queries, a listing in index order. The filters narrow either.",
            {
                "queries": {
                    **LINES,
                    "maxItems": f.MAX_QUERIES,
                    "description": 'Synonyms, e.g. ["terse", "brevity", "verbosity"].',
                },
                "tier": TIER,
                **{
                    flt.key: {**flt.argument_schema, "description": flt.description}
                    for flt in FILTER_ARGUMENTS
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": f"How many results ({SEARCH_LIMIT} unless given).",
                },
                "offset": {"type": "integer", "minimum": 0, "description": "Results to skip."},
            },
            (),
            memory_search,
        ),
        Tool(
            "memory_delete",
            "Delete a memory. The result names the memories that still reference it; their "
            "references are left in place.",
            {"name": NAME},
            ("name",),
            memory_delete,
            writes=True,
        ),
    ]
}
