"""The projects page: every tier with its memories and inline bytes; add, rename, remove."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from memadmin.pages.projects.forms import AddForm, RenameForm
from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memadmin.web.redrawn import on_refusal
from memories.rules import budget
from projects import writes as project_writes
from projects.models import Project
from projects.reads import tier_usage


def _context(
    errors: dict | None = None,
    added: str = "",
    add_error: str = "",
    typed: dict | None = None,
    confirming: str = "",
) -> dict:
    return {
        "tiers": tier_usage(timezone.now()),
        "budget_bytes": budget.budget_bytes(),
        "errors": errors or {},  # project name: why its rename or removal was refused
        "typed": typed or {},  # project name: the new name a refused rename was sent with
        "added": added,
        "add_error": add_error,
        "confirming": confirming,  # the project whose removal is asked about
    }


def _answer(
    request: HtmxHttpRequest,
    *,
    sentence: str = "",
    status: int = 200,
    **context,
) -> HttpResponse:
    """The table redrawn with this action's outcome alone: its sentence in the flash area, or
    its refusal beside its row (and nothing left over from an earlier action).

    Without htmx a success redirects (its sentence carried as a message) and anything else
    is the whole page, so a refused name is still in its box.
    """
    if not request.htmx:
        if sentence:
            messages.success(request, sentence)
            return redirect("projects:list")
        return render_page(request, "projects/list.html", _context(**context), status=status)
    page = _context(**context)
    shown = {tier.project.name for tier in page["tiers"] if tier.project}
    flash = [{"level_tag": "success", "message": sentence}] if sentence else []
    # A refusal about a project the table has no row for (it is gone) goes to the flash area.
    flash += [
        {"level_tag": "error", "message": text}
        for n, text in page["errors"].items()
        if n not in shown
    ]
    html = render_to_string("projects/list.html#table", page, request)
    html += render_to_string("memories/list.html#flash_oob", {"messages": flash}, request)
    return HttpResponse(html, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role()
def project_list(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = AddForm(request.POST)
        form.is_valid()  # always: the doors check the name
        name = form.cleaned_data["name"]
        with on_refusal(  # the table again, the refusal beside the name typed
            lambda error: _answer(request, add_error=error.message, added=name, status=error.status)
        ):
            project = project_writes.add(name)
        return _answer(request, sentence=f"Added project '{project.name}'.")
    return render_page(request, "projects/list.html", _context(), fragment="table")


@require_POST
@requires_role()
def project_rename(request: HtmxHttpRequest, name: str) -> HttpResponse:
    form = RenameForm(request.POST)
    form.is_valid()  # always: the doors check the name
    new_name = form.cleaned_data["new_name"]
    with on_refusal(  # the table again, the refusal beside the row renamed
        lambda error: _answer(
            request, errors={name: error.message}, typed={name: new_name}, status=error.status
        )
    ):
        project = project_writes.rename(name, new_name)
    return _answer(
        request, sentence=f"Renamed '{name}' to '{project.name}'; its memories moved with it."
    )


@require_POST
@requires_role()
def project_remove(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """Asks first (the row turns into the question), then removes through the door."""
    with on_refusal(  # the table again, the refusal beside the row
        lambda error: _answer(request, errors={name: error.message}, status=error.status)
    ):
        if request.POST.get("confirm") != "true":
            return _answer(request, confirming=Project.objects.named(name).name)
        project_writes.remove(name)
    return _answer(request, sentence=f"Removed project '{name}'.")
