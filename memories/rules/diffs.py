"""What changed between two states of a memory, field by field: a line diff for the body,
old and new values for the rest (a memory's History tab, the audit log, /v1)."""

import datetime as dt
import difflib
from dataclasses import dataclass, field

# What a diff shows, in this order; updated_at is left out (it moves on every write, and
# the revision's own time says when).
TEXT, LIST, VALUE, TIME = "text", "list", "value", "time"
DIFF_FIELDS = (
    ("project", VALUE),
    ("description", VALUE),
    ("body", TEXT),
    ("tags", LIST),
    ("references", LIST),
    ("priority", VALUE),
    ("load", VALUE),
    ("source", VALUE),
    ("expires_at", TIME),
    ("verified_at", TIME),
    ("created_at", TIME),
    ("read_count", VALUE),
)
DIFF_CONTEXT_LINES = 2


@dataclass
class DiffLine:
    op: str  # "add", "del", "same" or "hunk" (an @@ line)
    text: str

    @property
    def unified(self) -> str:
        prefix = {"add": "+", "del": "-", "same": " ", "hunk": ""}[self.op]
        return prefix + self.text


@dataclass
class FieldChange:
    field: str
    kind: str  # TEXT, LIST, VALUE or TIME
    old: object = None
    new: object = None
    added: list = field(default_factory=list)  # LIST: items new in this version
    removed: list = field(default_factory=list)  # LIST: items gone from it
    lines: list[DiffLine] = field(default_factory=list)  # TEXT: the line diff

    @property
    def old_time(self) -> dt.datetime | None:
        return _parse_time(self.old) if self.kind == TIME else None

    @property
    def new_time(self) -> dt.datetime | None:
        return _parse_time(self.new) if self.kind == TIME else None

    def to_dict(self) -> dict:
        """The body as a unified line diff; every other field as old and new values."""
        if self.kind == TEXT:
            return {"field": self.field, "diff": [line.unified for line in self.lines]}
        data = {"field": self.field, "old": self.old, "new": self.new}
        if self.kind == LIST:
            data.update(added=self.added, removed=self.removed)
        return data


def _parse_time(value: str | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromisoformat(value)


def line_diff(old: str, new: str) -> list[DiffLine]:
    """The lines of `new` against `old`, unified, with a little context (hunk lines between)."""
    # keepends, so a change of line ending or of the final newline still shows as a line
    # removed and a line added.
    lines = []
    for line in list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            lineterm="",
            n=DIFF_CONTEXT_LINES,
        )
    )[2:]:
        if line.startswith("@@"):
            lines.append(DiffLine("hunk", line.strip()))
        else:
            op = {"+": "add", "-": "del"}.get(line[0], "same")
            lines.append(DiffLine(op, line[1:].rstrip("\r\n")))
    return lines


def diff(before: dict | None, after: dict | None) -> list[FieldChange]:
    """What changed between two snapshots, field by field.

    None on one side (a creation, a deletion) lists every field the other side has set.
    """
    if before is None and after is None:
        return []
    one_sided = before is None or after is None
    old_state, new_state = before or {}, after or {}
    changes = []
    for name, kind in DIFF_FIELDS:
        old, new = old_state.get(name), new_state.get(name)
        if old == new or (one_sided and (old if after is None else new) in (None, "", [])):
            continue
        if kind == TEXT:
            changes.append(FieldChange(name, kind, lines=line_diff(old or "", new or "")))
        elif kind == LIST:
            old_items, new_items = old or [], new or []
            changes.append(
                FieldChange(
                    name,
                    kind,
                    old=old,
                    new=new,
                    added=[item for item in new_items if item not in old_items],
                    removed=[item for item in old_items if item not in new_items],
                )
            )
        else:
            changes.append(FieldChange(name, kind, old=old, new=new))
    return changes


def revision_changes(revision) -> list[FieldChange]:
    return diff(revision.before, revision.after)
