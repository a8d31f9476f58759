"""The history pages: a memory's History tab, the audit log and its exports, one revision,
change sets and their undo, the trash with restore and purge."""

import json
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memadmin.accounts import roles
from memadmin.pages.query import ANY_TIER_VALUE, canonical_query
from memadmin.web.access import has_role, requires_role
from memadmin.web.exports import csv_lines, download
from memadmin.web.http import HtmxHttpRequest, render_page
from memadmin.web.redrawn import on_refusal
from memadmin.web.responses import error_response
from memadmin.web.undo import THEN_MEMORY
from memories.models import Action, Door, Memory, Revision, TrashedMemory, memory_view_url
from memories.reads import history as history_reads
from memories.reads import lookup
from memories.reads.history import AuditFilterForm, AuditFilters
from memories.reads.params import tier_param
from memories.rules import tiers
from memories.rules.captions import record_caption
from memories.rules.errors import (
    AmbiguousName,
    ChangeSetNotFound,
    DomainError,
    NotInTrash,
    RevisionNotFound,
)
from memories.writes import undo
from projects.models import Project

PAGE_SIZE = 50
CSV_COLUMNS = [
    "id",
    "at",
    "memory",
    "project",
    "action",
    "door",
    "actor",
    "user",
    "token",
    "reason",
    "change_set",
    "changes",
]


def _current_memory(revision: Revision) -> Memory | None:
    return Memory.objects.select_related("project").filter(id=revision.memory_id).first()


def _flashed(request: HtmxHttpRequest, error: DomainError, again) -> HttpResponse:
    """The page the request came from, drawn again with the refusal flashed above it, at its
    status."""
    messages.error(request, error.message)
    response = again()
    response.status_code = error.status
    return response


# A memory's History tab -------------------------------------------------------------------


@require_GET
@requires_role()
def memory_history(request: HtmxHttpRequest, name: str) -> HttpResponse:
    try:
        memory = lookup.locate(name, tier_param(request.GET))
    except AmbiguousName as error:
        return render_page(
            request,
            "memories/ambiguous.html",
            {"name": error.details["name"], "projects": error.details["projects"]},
            status=409,
        )
    form = AuditFilterForm(
        {key: request.GET[key] for key in ("before", "after") if key in request.GET}
    )
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    page = history_reads.log_page(
        AuditFilters(memory_id=memory.id),
        limit=PAGE_SIZE,
        before=form.cleaned_data["before"],
        after=form.cleaned_data["after"],
    )
    base = memory_view_url("memories:history", memory.name, memory.project_name)
    latest = Revision.objects.filter(memory_id=memory.id).order_by("-id").values("id").first()
    context = {
        "memory": memory,
        "expired": memory.is_expired(),
        "caption": record_caption(memory, timezone.now()),
        "page": page,
        "current_revision": latest["id"] if latest else None,
        "detail_url": memory.get_absolute_url(),
        "history_url": base,
        "older_url": f"{base}&before={page.older}" if page.older else None,
        "newer_url": f"{base}&after={page.newer}" if page.newer else None,
    }
    return render_page(request, "history/memory.html", context, fragment="revisions")


# The audit log ----------------------------------------------------------------------------


def _log_form(request: HtmxHttpRequest) -> tuple[AuditFilterForm, QueryDict]:
    params = canonical_query(request.GET)
    return AuditFilterForm(params), params


def _log_context(form: AuditFilterForm, params: QueryDict) -> dict:
    context = {
        "params": params,
        "projects": Project.objects.names(),
        "any_tier_value": ANY_TIER_VALUE,
        "doors": Door.choices,
        "actions": Action.choices,
        "users": _recorded_users(),
    }
    if not form.is_valid():
        return {**context, "error": form.first_error()}
    filters = form.filters()
    limit = form.cleaned_data["limit"] or PAGE_SIZE
    page = history_reads.log_page(
        filters, limit=limit, before=form.cleaned_data["before"], after=form.cleaned_data["after"]
    )
    paging = params.copy()
    for key in ("before", "after"):
        paging.pop(key, None)
    export = paging.copy()
    export.pop("limit", None)

    def url(**extra) -> str:
        query = paging.copy()
        for key, value in extra.items():
            query[key] = str(value)
        return reverse("history:log") + "?" + query.urlencode()

    return {
        **context,
        "page": page,
        "summary": filters.summary(page.count),
        "project_changes": history_reads.project_changes(filters),
        "older_url": url(before=page.older) if page.older else None,
        "newer_url": url(after=page.newer) if page.newer else None,
        "export_query": export.urlencode(),
    }


def _recorded_users() -> list[str]:
    return list(
        Revision.objects.exclude(username="")
        .order_by("username")
        .values_list("username", flat=True)
        .distinct()[:200]
    )


@require_GET
@requires_role()
def log(request: HtmxHttpRequest) -> HttpResponse:
    form, params = _log_form(request)
    context = _log_context(form, params)
    status = 400 if "error" in context else 200
    return render_page(request, "history/log.html", context, fragment="results", status=status)


@require_GET
@requires_role()
def log_export(request: HtmxHttpRequest, fmt: str) -> HttpResponse:
    """Every change the log's filters admit (no paging), as CSV or JSON, streamed."""
    form, _ = _log_form(request)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    rows = history_reads.export_rows(form.filters())
    if fmt == "csv":
        chunks = csv_lines(
            CSV_COLUMNS,
            (
                [
                    data["id"],
                    data["at"],
                    data["memory"]["name"],
                    data["memory"]["project"],
                    data["action"],
                    data["door"],
                    data["actor"],
                    data["user"],
                    data["token"],
                    data["reason"],
                    data["change_set"],
                    entry.summary(),
                ]
                for entry in rows
                for data in [entry.to_dict()]
            ),
        )
    else:

        def chunks_of_json():
            yield '{"revisions": ['
            for number, entry in enumerate(rows):
                yield ("," if number else "") + json.dumps(entry.to_dict(), ensure_ascii=False)
            yield "]}"

        chunks = chunks_of_json()
    return download(chunks, fmt, "audit")


# One revision, and restoring its version ---------------------------------------------------


def _revision_page(request: HtmxHttpRequest, revision: Revision, status: int = 200):
    (entry,) = history_reads.entries([revision])
    current = _current_memory(revision)
    latest = Revision.objects.filter(memory_id=revision.memory_id).order_by("-id").first()
    context = {
        "entry": entry,
        "memory": current,
        "current_revision": latest.id if current is not None else None,
        "in_trash": current is None
        and TrashedMemory.objects.filter(memory_id=revision.memory_id).exists(),
        "history_url": (
            memory_view_url("memories:history", current.name, current.project_name)
            if current
            else None
        ),
    }
    return render_page(request, "history/revision.html", context, status=status)


@require_GET
@requires_role()
def revision_detail(request: HtmxHttpRequest, revision_id: int) -> HttpResponse:
    revision = history_reads.revision(revision_id)
    if revision is None:
        raise RevisionNotFound(revision_id)
    return _revision_page(request, revision)


@require_POST
@requires_role()
def restore_version(request: HtmxHttpRequest, revision_id: int) -> HttpResponse:
    revision = history_reads.revision(revision_id)
    if revision is None:
        raise RevisionNotFound(revision_id)
    with on_refusal(
        lambda error: _flashed(request, error, lambda: _revision_page(request, revision))
    ):
        result = undo.restore_version(revision_id)
    memory = result.memory
    messages.success(
        request,
        " ".join([f"Restored '{memory.name}' as revision {revision_id} left it.", *result.notes]),
    )
    if request.POST.get("then") == THEN_MEMORY:  # the Undo of an edit's banner
        return redirect(memory)
    return redirect(memory_view_url("memories:history", memory.name, memory.project_name))


# Change sets ----------------------------------------------------------------------------


@require_GET
@requires_role()
def change_set_list(request: HtmxHttpRequest) -> HttpResponse:
    form = AuditFilterForm({"before": request.GET["before"]} if "before" in request.GET else {})
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    sets = history_reads.change_sets(limit=PAGE_SIZE + 1, before=form.cleaned_data["before"])
    older = sets[PAGE_SIZE - 1].id if len(sets) > PAGE_SIZE else None
    context = {
        "change_sets": sets[:PAGE_SIZE],
        "older_url": f"{reverse('history:change_sets')}?before={older}" if older else None,
    }
    return render_page(request, "history/change_sets.html", context)


def _change_set_page(
    request: HtmxHttpRequest, group, *, refused=(), reason: str = "", status: int = 200
):
    revisions = list(group.revisions.order_by("id"))
    context = {
        "group": group,
        "entries": history_reads.entries(revisions),
        "undone_by": getattr(group, "undone_by", None),
        "refused": refused,
        "reason": reason,  # typed with a refused undo, kept to send again
        "log_url": reverse("history:log") + "?" + urlencode({"change_set": group.id}),
    }
    return render_page(request, "history/change_set.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role()
def change_set_detail(request: HtmxHttpRequest, change_set_id: int) -> HttpResponse:
    group = history_reads.change_set(change_set_id)
    if group is None:
        raise ChangeSetNotFound(change_set_id)
    if request.method != "POST":
        return _change_set_page(request, group)
    reason = request.POST.get("reason", "")
    with on_refusal(  # its refused rows marked
        lambda error: _flashed(
            request,
            error,
            lambda: _change_set_page(
                request, group, refused=error.details.get("refused", []), reason=reason
            ),
        )
    ):
        undone = undo.undo(group.id)
    undo_set = undone.change_set
    done = format_html(
        "Undid change set {}: {} memories put back, recorded as change set {}.",
        group.id,
        undo_set.revisions.count(),
        undo_set.id,
    )
    if undone.skipped:
        left = format_html_join("; ", "{} ({})", _skipped_rows(undone.skipped))
        done = format_html("{} Left as they are now: {}.", done, left)
    messages.success(request, done)
    return redirect("history:change_set", change_set_id=undo_set.id)


def _skipped_rows(skipped: list[dict]):
    """Each row an undo left: its name and why, the revision it changed in linked."""
    for row in skipped:
        why = row["reason"]
        if row["revision"]:
            url = reverse("history:revision", args=[row["revision"]])
            why = format_html('<a href="{}">{}</a>', url, why)
        yield tiers.memory_label(row["name"], row["project"]), why


# The trash ------------------------------------------------------------------------------


def _trash_page(request: HtmxHttpRequest, status: int = 200) -> HttpResponse:
    form = AuditFilterForm({"before": request.GET["before"]} if "before" in request.GET else {})
    before = form.cleaned_data["before"] if form.is_valid() else None
    rows, count = history_reads.trash(limit=PAGE_SIZE + 1, before=before)
    older = rows[PAGE_SIZE - 1].entry.id if len(rows) > PAGE_SIZE else None
    context = {
        "rows": rows[:PAGE_SIZE],
        "count": count,
        "older_url": f"{reverse('history:trash')}?before={older}" if older else None,
    }
    return render_page(request, "history/trash.html", context, status=status)


@require_GET
@requires_role()
def trash(request: HtmxHttpRequest) -> HttpResponse:
    return _trash_page(request)


@require_POST
@requires_role()
def trash_restore(request: HtmxHttpRequest, trashed_id: int) -> HttpResponse:
    if history_reads.trash_row(trashed_id) is None:
        raise NotInTrash(trashed_id)
    with on_refusal(lambda error: _flashed(request, error, lambda: _trash_page(request))):
        memory = undo.restore(trashed_id)
    tier = tiers.label(memory.project_name)
    messages.success(request, f"Restored '{memory.name}' ({tier}) from the trash.")
    if request.POST.get("then") == THEN_MEMORY:  # the Undo of a delete's banner
        return redirect(memory)
    return redirect("history:trash")


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(read=roles.ADMIN, write=roles.ADMIN)
def trash_purge(request: HtmxHttpRequest, trashed_id: int) -> HttpResponse:
    """A confirmation, then the purge: for good, the history's content with it."""
    row = history_reads.trash_row(trashed_id)
    if row is None:
        raise NotInTrash(trashed_id)
    if request.method != "POST":
        return render_page(request, "history/purge.html", {"row": row})
    name = undo.purge(trashed_id, admin=has_role(request, roles.ADMIN))
    messages.success(request, f"Purged '{name}': it and the content of its history are gone.")
    return redirect("history:trash")
