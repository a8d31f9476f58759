"""The Snapshots page (admins): download the store as a zip, upload one, preview it, import it.

The zip is the tree `memory export` writes. An upload is kept (0600, under the data dir)
between its dry run and the admin's confirmation, named by a token held in the session, so
what lands is the file that was previewed; the import runs its own checks again in its
transaction, since the store may have changed in between.
"""

import datetime as dt
import secrets
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts import roles
from memadmin.pages.snapshots.forms import ImportForm, PreviewForm
from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memadmin.web.middleware import takes_upload
from memadmin.web.redrawn import on_refusal
from memories.reads.params import tier_param
from memories.rules import tiers
from memories.rules.errors import DomainError
from memories.rules.tiers import ANY_TIER
from memories.writes import imports, snapshot
from projects.models import Project

UPLOAD_LIFETIME = dt.timedelta(hours=1)
SESSION_KEY = "snapshot_upload"
SHOWN_ROWS = 500  # rows of each list the preview prints; the counts cover the rest

admins_only = requires_role(read=roles.ADMIN, write=roles.ADMIN)


def _uploads() -> Path:
    folder = Path(settings.DATA_DIR) / "snapshot-uploads"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def _upload_path(token: str) -> Path:
    return _uploads() / f"{token}.zip"


def _forget_stale_uploads() -> None:
    cutoff = time.time() - UPLOAD_LIFETIME.total_seconds()
    for path in _uploads().glob("*.zip"):
        if path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)


def _discard(request: HtmxHttpRequest) -> None:
    held = request.session.pop(SESSION_KEY, None)
    if held:
        _upload_path(held["token"]).unlink(missing_ok=True)


def _context(**values) -> dict:
    return {
        "projects": Project.objects.names(),
        "shown_rows": SHOWN_ROWS,
        **values,
    }


def _import_panel(request, status: int = 200, **values) -> HttpResponse:
    return render_page(
        request, "memories/snapshots.html", _context(**values), fragment="import", status=status
    )


@require_GET
@admins_only
def snapshots(request: HtmxHttpRequest) -> HttpResponse:
    return render_page(request, "memories/snapshots.html", _context(), fragment="import")


@require_GET
@admins_only
def snapshot_download(request: HtmxHttpRequest) -> HttpResponse:
    """`project` absent: every tier; empty: the global tier; a name: that project's."""
    project = tier_param(request.GET)
    # Not a with block: FileResponse closes it once the zip has been sent.
    spool = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115
    snapshot.export_zip(spool, project=project)
    spool.seek(0)
    scope = "" if project is ANY_TIER else f"-{tiers.label(project)}"
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M%S")
    return FileResponse(
        spool,
        as_attachment=True,
        filename=f"memadmin-snapshot{scope}-{stamp}.zip",
        content_type="application/zip",
    )


@takes_upload("A snapshot upload")
@require_POST
@admins_only
def snapshot_preview(request: HtmxHttpRequest) -> HttpResponse:
    """The dry run of an uploaded zip: what would be added, overwritten and refused (the
    upload's size was held to its limit before it was read: RequestSizeMiddleware)."""
    form = PreviewForm(request.POST, request.FILES)
    form.is_valid()  # always: a checkbox and an optional file
    upload, force = form.cleaned_data["snapshot"], form.cleaned_data["force"]
    if upload is None:
        return _import_panel(request, 400, error="Choose a snapshot zip to upload.")
    _discard(request)
    _forget_stale_uploads()
    token = secrets.token_urlsafe(24)
    path = _upload_path(token)
    with path.open("xb") as handle:
        path.chmod(0o600)
        for chunk in upload.chunks():
            handle.write(chunk)

    def dropped(error: DomainError) -> HttpResponse:  # the upload dropped, the refusal shown
        path.unlink(missing_ok=True)
        return _import_panel(request, error.status, error=error.message, filename=upload.name)

    with on_refusal(dropped):
        with path.open("rb") as handle:
            entries = snapshot.read_zip(handle)
        plan = imports.preview_import(entries, force=force)
    request.session[SESSION_KEY] = {"token": token, "name": upload.name}
    return _import_panel(
        request, plan=plan, token=token, force=force, filename=upload.name, total=len(entries)
    )


@require_POST
@admins_only
def snapshot_import(request: HtmxHttpRequest) -> HttpResponse:
    """Land the upload the admin previewed, in one transaction, or nothing of it."""
    held = request.session.get(SESSION_KEY)
    form = ImportForm(request.POST)
    form.is_valid()  # always: a text and a checkbox
    token, force = form.cleaned_data["token"], form.cleaned_data["force"]
    path = _upload_path(held["token"]) if held else None
    if not held or not secrets.compare_digest(token, held["token"]) or not path.exists():
        return _import_panel(
            request, 400, error="That upload is no longer here; upload the snapshot again."
        )

    def dropped(error: DomainError) -> HttpResponse:  # the upload dropped, the refusal shown
        _discard(request)
        return _import_panel(request, error.status, error=error.message)

    with on_refusal(dropped), path.open("rb") as handle:
        entries = snapshot.read_zip(handle)

    def kept(error: DomainError) -> HttpResponse:  # the plan again, the upload kept to retry
        return _import_panel(
            request,
            error.status,
            error=error.message,
            plan=imports.preview_import(entries, force=force),
            token=token,
            force=force,
            filename=held["name"],
            total=len(entries),
        )

    with on_refusal(kept):
        result = imports.import_memories(entries, force=force)
    _discard(request)
    sentence = (
        f"Imported {len(entries)} memor{'y' if len(entries) == 1 else 'ies'} from "
        f"{held['name']}: {len(result.added)} added, {len(result.overwritten)} overwritten."
    )
    if not request.htmx:
        messages.success(request, sentence)
        return redirect("snapshots:page")
    return _import_panel(request, imported=sentence)
