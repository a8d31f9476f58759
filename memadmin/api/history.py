"""/v1 history: a memory's revisions and the audit log, one revision and restoring its
version, change sets and their undo, the trash with restore and purge; from the reads and
the doors (memories.writes.undo) the history pages use."""

from dataclasses import replace

from django.http import HttpRequest, QueryDict

from memadmin.accounts.roles import ADMIN
from memadmin.api.auth import READ, WRITE, authorize
from memadmin.api.responses import json_body, ok, query_tier, valid
from memories.reads import backlinks, lookup
from memories.reads import history as history_reads
from memories.reads.history import AuditFilterForm, AuditFilters, LogPage
from memories.rules import fields as f
from memories.rules.errors import ChangeSetNotFound, NotInTrash, RevisionNotFound
from memories.writes import history, undo

REASON = {"reason"}  # what a restore or an undo takes: recorded with its revisions


def _page(page: LogPage, **extra) -> dict:
    return {
        **extra,
        "revisions": [entry.to_dict() for entry in page.entries],
        "count": page.count,
        "older": page.older,
        "newer": page.newer,
    }


def _read(form: AuditFilterForm) -> dict:
    data = valid(form).cleaned_data
    return {
        "limit": data["limit"] or history_reads.DEFAULT_LIMIT,
        "before": data["before"],
        "after": data["after"],
    }


@authorize(READ)
def memory_history(request: HttpRequest, name: str):
    """The memory's revisions, newest first; the audit filters narrow them."""
    memory = lookup.locate(name, query_tier(request))
    params = QueryDict(mutable=True)
    for key, values in request.GET.lists():
        if key not in ("project", "memory"):
            params.setlist(key, values)
    form = AuditFilterForm(params)
    paging = _read(form)
    filters = replace(form.filters(), memory_id=memory.id)
    page = history_reads.log_page(filters, **paging)
    return ok(
        _page(page, memory={"id": memory.id, "name": memory.name, "project": memory.project_name})
    )


@authorize(READ)
def audit(request: HttpRequest):
    """Every change the filters admit, newest first, by keyset pages."""
    form = AuditFilterForm(request.GET)
    paging = _read(form)
    filters = form.filters()
    page = history_reads.log_page(filters, **paging)
    return ok(_page(page, summary=filters.summary(page.count)))


def _key(value: int, missing: type) -> int:
    """A row id from the path; one no store can hold names nothing (404)."""
    if not 1 <= value <= f.MAX_ID:
        raise missing(value)
    return value


def _reason(request: HttpRequest) -> str | None:
    return json_body(request, allowed=REASON, optional=True).get("reason")


# One revision, and its version put back ----------------------------------------------------


@authorize(READ)
def revision_detail(request: HttpRequest, revision_id: int):
    """One revision with what it changed; `restorable`: it left a version to put back."""
    revision = history_reads.revision(_key(revision_id, RevisionNotFound))
    if revision is None:
        raise RevisionNotFound(revision_id)
    (entry,) = history_reads.entries([revision])
    return ok({**entry.to_dict(), "restorable": entry.can_restore})


@authorize(WRITE)
def restore_version(request: HttpRequest, revision_id: int):
    """Make the memory again what the revision left it, through the write door."""
    revision_id = _key(revision_id, RevisionNotFound)
    with history.acting(reason=_reason(request)):
        result = undo.restore_version(revision_id, if_match=request.headers.get("If-Match"))
    memory = result.memory
    return ok({**backlinks.detail_dict(memory), "notes": result.notes}, etag=memory.etag)


# Change sets -------------------------------------------------------------------------------


@authorize(READ)
def change_sets(request: HttpRequest):
    """The change sets, newest first, by keyset pages (`before=` the last one's id)."""
    paging = _read(AuditFilterForm(request.GET))
    limit = paging["limit"]
    sets = history_reads.change_sets(limit=limit + 1, before=paging["before"])
    return ok(
        {
            "change_sets": [history_reads.change_set_dict(g, g.size) for g in sets[:limit]],
            "older": sets[limit - 1].id if len(sets) > limit else None,
        }
    )


def _change_set(change_set_id: int):
    group = history_reads.change_set(_key(change_set_id, ChangeSetNotFound))
    if group is None:
        raise ChangeSetNotFound(change_set_id)
    return group


@authorize(READ)
def change_set_detail(request: HttpRequest, change_set_id: int):
    """One change set and a page of its revisions, newest first."""
    group = _change_set(change_set_id)
    paging = _read(AuditFilterForm(request.GET))
    page = history_reads.log_page(AuditFilters(change_set=group.id), **paging)
    return ok(
        {
            "change_set": history_reads.change_set_dict(group, page.count),
            **_page(page),
        }
    )


@authorize(WRITE)
def undo_change_set(request: HttpRequest, change_set_id: int):
    """Undo a change set: the memories changed since are left as they are (`skipped`, each
    with its reason and the revision it changed in); the rest are put back, in one change
    set of their own. Refused whole (409, each row named) when a rule refuses any."""
    group = _change_set(change_set_id)
    with history.acting(reason=_reason(request)):
        undone = undo.undo(group.id)
    undo_set = history_reads.change_set(undone.change_set.id)
    return ok(
        {
            "undone": history_reads.change_set_dict(
                history_reads.change_set(group.id), group.revisions.count()
            ),
            "change_set": history_reads.change_set_dict(undo_set, undo_set.revisions.count()),
            "skipped": undone.skipped,
        }
    )


# The trash ---------------------------------------------------------------------------------


@authorize(READ)
def trash(request: HttpRequest):
    """The trash, most recently deleted first, by keyset pages (`before=` the last id)."""
    paging = _read(AuditFilterForm(request.GET))
    limit = paging["limit"]
    rows, count = history_reads.trash(limit=limit + 1, before=paging["before"])
    return ok(
        {
            "trash": [row.to_dict() for row in rows[:limit]],
            "count": count,
            "older": rows[limit - 1].entry.id if len(rows) > limit else None,
        }
    )


@authorize(WRITE)
def trash_restore(request: HttpRequest, trashed_id: int):
    """Bring a memory back as it was deleted (refused, 409, when its name was taken since
    or it would pass the inline budget; 404 when its project is gone)."""
    trashed_id = _key(trashed_id, NotInTrash)
    with history.acting(reason=_reason(request)):
        memory = undo.restore(trashed_id)
    return ok(backlinks.detail_dict(memory), etag=memory.etag)


@authorize(WRITE)
def trash_purge(request: HttpRequest, trashed_id: int):
    """Purge a memory from the trash for good: an admin's token alone (403 otherwise)."""
    trashed_id = _key(trashed_id, NotInTrash)
    name = undo.purge(trashed_id, admin=request.api_role == ADMIN)
    return ok({"purged": name})
