"""One memory: every field, its body, its references both ways, the edit form, delete; and the
form that creates a memory."""

import difflib
import hashlib

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_http_methods

from memadmin.accounts import roles
from memadmin.pages.memories import files
from memadmin.pages.memories.forms import MemoryForm, NewMemoryForm, SupersedeForm
from memadmin.web import static
from memadmin.web.access import REFUSALS, has_role, requires_role
from memadmin.web.http import HtmxHttpRequest, render_page, wants_fragment
from memadmin.web.markdown import render_markdown
from memadmin.web.redrawn import on_refusal
from memadmin.web.responses import error_response
from memadmin.web.undo import undo_delete, undo_edit
from memories.models import Memory, TrashedMemory, tier_query
from memories.reads import backlinks, lookup, supersession
from memories.reads.params import tier_param
from memories.rules import secrets
from memories.rules.captions import record_caption
from memories.rules.errors import AmbiguousName, DomainError, StaleBody
from memories.rules.fields import rfc3339
from memories.writes import doors
from projects.models import Project

FORM_FIELDS = ("description", "tags", "references", "priority", "load", "source", "expires")


def body_digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def like_stored(submitted: str, stored: str) -> str:
    """A browser sends every line break as CRLF: keep the stored body's own line endings."""
    if "\r\n" in stored:
        return submitted
    return submitted.replace("\r\n", "\n")


def initial_values(memory: Memory) -> dict:
    return {
        "description": memory.description,
        "body": memory.body,
        "tags": memory.tags,
        "references": memory.references,
        "priority": memory.priority,
        "load": memory.load,
        "source": memory.source,
        "expires": rfc3339(memory.expires_at) or "",
        "project": memory.project_name or "",
    }


def _ambiguous(request: HtmxHttpRequest, error: AmbiguousName) -> HttpResponse:
    return render_page(
        request,
        "memories/ambiguous.html",
        {"name": error.details["name"], "projects": error.details["projects"]},
        status=409,
    )


def _locate(request: HtmxHttpRequest, name: str):
    """The memory the URL names, or, for a name several projects hold, the page asking which."""
    try:
        return lookup.locate(name, tier_param(request.GET)), None
    except AmbiguousName as error:
        return None, _ambiguous(request, error)


def _body_context(memory: Memory, raw: bool) -> dict:
    """What the body partial shows (the whole answer to its Rendered/Raw toggle)."""
    return {
        "memory": memory,
        "raw": raw,
        "body_html": "" if raw else render_markdown(memory.body),
        "detail_url": memory.get_absolute_url(),
    }


def _form_context(memory: Memory, form: MemoryForm | None) -> dict:
    """What the edit partial shows: the form (None: folded, loaded when unfolded)."""
    return {
        "memory": memory,
        "detail_url": memory.get_absolute_url(),
        "form": form,
        "body_sha": body_digest(memory.body) if form is not None else "",
    }


def _context(
    memory: Memory,
    form: MemoryForm | None,
    *,
    raw: bool = False,
    can_write: bool = False,
    **extra,
) -> dict:
    now = timezone.now()
    context = {
        **_body_context(memory, raw),
        **_form_context(memory, form),
        "now": now,
        "expired": memory.is_expired(now),
        "caption": record_caption(memory, now),
        "references": backlinks.resolve_references(memory),
        "referenced_by": backlinks.referenced_by(memory),
        "replaces": supersession.replaced_by(memory),
        **extra,
    }
    if form is None:
        context["content_key"] = content_key(context, can_write)
    return context


def _stored(memory: Memory):
    """Every stored field's value, hashable (tags and references are lists)."""
    for field in Memory._meta.concrete_fields:
        value = getattr(memory, field.attname)
        yield tuple(value) if isinstance(value, list) else value


def _shown(other: Memory) -> tuple:
    """What the page shows of a memory it links to (a reference's or a citer's)."""
    return (other.name, other.project_id, other.project_name, other.description)


def content_key(context: dict, can_write: bool) -> tuple:
    """Everything the page's content draws from: its drawing is kept and drawn again only
    when any of it changes ({% drawn_once %}). Every stored field of the memory and its tier's
    name; the memories its references name and those citing it, as shown; the day its ages
    are told from, in the server's zone, and whether it has expired; the Raw toggle, the
    role's edit controls, the site's prefix and the static files' manifest."""
    memory, now = context["memory"], context["now"]
    return (
        tuple(_stored(memory)),
        memory.project_name,
        tuple((ref.target, ref.memory and _shown(ref.memory)) for ref in context["references"]),
        tuple(_shown(other) for other in context["referenced_by"]),
        tuple(_shown(other) for other in context["replaces"]),
        timezone.localdate(now),
        timezone.get_current_timezone_name(),
        context["expired"],
        context["raw"],
        can_write,
        get_script_prefix(),
        static.addresses_key(),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role()
def memory_detail(request: HtmxHttpRequest, name: str) -> HttpResponse:
    memory, answer = _locate(request, name)
    if answer is not None:
        return answer
    if request.method == "POST":
        return _save(request, memory)
    if "format" in request.GET:
        return files.memory_file(request, memory, request.GET["format"])
    raw = request.GET.get("view") == "raw"
    # The edit form is drawn when asked for (edit=1): folded, the page loads it on unfolding.
    editing = "edit" in request.GET
    if editing and not has_role(request, roles.OPERATOR):  # an auditor is shown no edit form
        return error_response(request, 403, REFUSALS[roles.OPERATOR])
    form = _edit_form(memory, admin=has_role(request, roles.ADMIN)) if editing else None
    if not wants_fragment(request):
        context = _context(memory, form, raw=raw, can_write=has_role(request, roles.OPERATOR))
    elif editing:
        context = _form_context(memory, form)
    else:
        context = _body_context(memory, raw)
    fragment = "edit" if editing else "body"
    return render_page(request, "memories/detail.html", context, fragment=fragment)


def _edit_form(memory: Memory, *, admin: bool) -> MemoryForm:
    return MemoryForm(initial=initial_values(memory), projects=Project.objects.names(), admin=admin)


def _save(request: HtmxHttpRequest, memory: Memory) -> HttpResponse:
    """Send the write door only what the user changed, the body checked against its start."""
    projects = Project.objects.names()
    admin = has_role(request, roles.ADMIN)
    form = MemoryForm(request.POST, initial=initial_values(memory), projects=projects, admin=admin)
    if not form.is_valid():
        return _form_again(request, memory, form, status=400)
    changes = {
        key: form.cleaned_data[key]
        for key in FORM_FIELDS
        if key in form.changed_data and key != "body"
    }
    started_from = request.POST.get("body_sha", "")
    body = like_stored(form.cleaned_data["body"], memory.body)
    if "body" in request.POST and body_digest(body) != started_from:  # the body was edited
        if started_from != body_digest(memory.body):
            conflict = StaleBody(memory.name, memory.body)
            return _form_again(request, memory, form, status=409, conflict=conflict, yours=body)
        changes["body"] = body
    if "project" in form.changed_data:
        changes["move_to"] = form.cleaned_data["project"] or None
    verified = form.cleaned_data["verified"]
    if not changes and not verified:
        messages.info(request, "Nothing to save: no field was changed.")
        return redirect(memory)

    def refused(error: DomainError) -> HttpResponse:  # the form again, nothing typed lost
        if isinstance(error, StaleBody):  # beside the body as it is now, not beside a field
            return _form_again(request, memory, form, status=409, conflict=error, yours=body)
        form.refuse(error)
        return _form_again(request, memory, form, status=error.status)

    with on_refusal(refused):
        result = doors.write(
            memory.name,
            project=memory.project_name,
            verified=verified,
            expect_body=memory.body if "body" in changes else None,
            allow_secret=secrets.allowance(form.cleaned_data.get("allow_secret"), admin=admin),
            **changes,
        )
    if not result.changed:
        messages.info(request, result.notes[0])
        return redirect(result.memory)
    saved = "Saved" + (" and marked verified" if verified else "") + "."
    if result.moved is not None:
        saved += " " + result.moved
    sentence = " ".join([saved, *result.notes])
    messages.success(request, format_html("{} {}", sentence, undo_edit(request, memory.id)))
    if request.POST.get("then") == "continue":
        return redirect(result.memory.get_absolute_url() + "&edit=1#edit-form")
    return redirect(result.memory)


def _form_again(
    request: HtmxHttpRequest,
    memory: Memory,
    form: MemoryForm,
    *,
    status: int,
    conflict: StaleBody | None = None,
    yours: str = "",
) -> HttpResponse:
    """The form as the user sent it, with what went wrong; nothing they typed is lost."""
    current = Memory.objects.select_related("project").get(id=memory.id)
    extra = {}
    if conflict is not None:
        extra.update(
            conflict=conflict,
            conflict_diff="".join(
                difflib.unified_diff(
                    current.body.splitlines(keepends=True),
                    yours.splitlines(keepends=True),
                    fromfile="current body",
                    tofile="your edit",
                )
            ),
        )
    return render_page(
        request, "memories/detail.html", _context(current, form, **extra), status=status
    )


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(read=roles.OPERATOR)
def memory_delete(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """A confirmation naming the memories that reference this one; the delete on POST."""
    memory, answer = _locate(request, name)
    if answer is not None:
        return answer
    if request.method == "POST":
        result = doors.delete(memory.name, project=memory.project_name)
        sentence = f"Deleted '{result.name}'."
        if result.referenced_by:
            names = ", ".join(f"'{m.name}'" for m in result.referenced_by)
            sentence += f" Still referencing it, as markers of a fact to revisit: {names}."
        entry = TrashedMemory.objects.get(memory_id=memory.id)
        messages.success(request, format_html("{} {}", sentence, undo_delete(request, entry)))
        # Back to the list of its tier, where a delete from the list's own row would leave you.
        return redirect(reverse("memories:list") + tier_query(memory.project_name))
    return render_page(
        request,
        "memories/delete.html",
        {
            "memory": memory,
            "referenced_by": backlinks.referenced_by(memory),
            "detail_url": memory.get_absolute_url(),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(read=roles.OPERATOR)
def memory_supersede(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """This memory supersedes another of its tier, named in the form: the write door marks
    that one superseded, out of the index and the inline band, in one change set."""
    memory, answer = _locate(request, name)
    if answer is not None:
        return answer
    if request.method == "POST":
        form = SupersedeForm(request.POST)
    else:  # a hygiene candidate's link names the memory to supersede
        form = SupersedeForm(initial={"supersedes": request.GET.get("supersedes", "")})

    def page(status: int) -> HttpResponse:
        context = {"memory": memory, "form": form, "detail_url": memory.get_absolute_url()}
        return render_page(request, "memories/supersede.html", context, status=status)

    if not form.is_bound:
        return page(200)
    if not form.is_valid():
        return page(400)
    with on_refusal(lambda error: page(error.status), form=form):
        result = doors.write(
            memory.name, project=memory.project_name, supersedes=form.cleaned_data["supersedes"]
        )
    messages.success(request, " ".join(result.notes))
    return redirect(result.memory)


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(read=roles.OPERATOR)
def memory_new(request: HtmxHttpRequest) -> HttpResponse:
    projects = Project.objects.names()
    admin = has_role(request, roles.ADMIN)
    if request.method != "POST":
        initial = {
            "name": request.GET.get("name", ""),
            "priority": 5,
            "load": "index",
            "project": request.GET.get("project", ""),
        }
        form = NewMemoryForm(initial=initial, projects=projects, admin=admin)
        return render_page(request, "memories/new.html", {"form": form})
    form = NewMemoryForm(request.POST, projects=projects, admin=admin)
    if not form.is_valid():
        return render_page(request, "memories/new.html", {"form": form}, status=400)
    data = form.cleaned_data
    with on_refusal(  # the form again at 400 whatever the refusal, as for a field's error
        lambda error: render_page(request, "memories/new.html", {"form": form}, status=400),
        form=form,
    ):
        result = doors.write(
            data["name"],
            project=data["project"] or None,
            description=data["description"],
            body=like_stored(data["body"], ""),
            tags=data["tags"],
            references=data["references"],
            priority=data["priority"],
            load=data["load"],
            source=data["source"],
            expires=data["expires"] or None,
            must_create=True,
            allow_secret=secrets.allowance(data.get("allow_secret"), admin=admin),
        )
    messages.success(request, " ".join([f"Saved '{result.memory.name}'.", *result.notes]))
    if request.POST.get("then") == "another":  # the form again, in the tier just written to
        return redirect(reverse("memories:new") + tier_query(result.memory.project_name))
    return redirect(result.memory)
