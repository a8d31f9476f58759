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
from memories.rules import budget
from memories.rules.errors import DomainError
from projects import writes as project_writes
from projects.reads import tier_usage


def _context(errors: dict | None = None, added: str = "", add_error: str = "") -> dict:
    return {
        "tiers": tier_usage(timezone.now()),
        "budget_bytes": budget.budget_bytes(),
        "errors": errors or {},  # project name: why its rename or removal was refused
        "added": added,
        "add_error": add_error,
    }


def _answer(
    request: HtmxHttpRequest,
    *,
    sentence: str = "",
    errors: dict | None = None,
    added: str = "",
    add_error: str = "",
    status: int = 200,
) -> HttpResponse:
    """The table redrawn with any refusal beside its row, or (without htmx) a redirect.

    `sentence` says what was done; `errors` maps a project's name to why it was refused.
    """
    errors = errors or {}
    if not request.htmx:
        if sentence:
            messages.success(request, sentence)
        for text in [add_error, *errors.values()]:
            if text:
                messages.error(request, text)
        return redirect("projects:list")
    context = _context(errors, added, add_error)
    shown = {tier.project.name for tier in context["tiers"] if tier.project}
    flash = [{"level_tag": "success", "message": sentence}] if sentence else []
    # A refusal about a project the table has no row for (it is gone) goes to the flash area.
    flash += [
        {"level_tag": "error", "message": text} for n, text in errors.items() if n not in shown
    ]
    html = render_to_string("projects/list.html#table", context, request)
    if flash:
        html += render_to_string("memories/list.html#flash_oob", {"messages": flash}, request)
    return HttpResponse(html, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role()
def project_list(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = AddForm(request.POST)
        form.is_valid()  # always: the doors check the name
        name = form.cleaned_data["name"]
        try:
            project = project_writes.add(name)
        except DomainError as error:
            return _answer(request, add_error=error.message, added=name, status=error.status)
        return _answer(request, sentence=f"Added project '{project.name}'.")
    return render_page(request, "projects/list.html", _context(), fragment="table")


@require_POST
@requires_role()
def project_rename(request: HtmxHttpRequest, name: str) -> HttpResponse:
    form = RenameForm(request.POST)
    form.is_valid()  # always: the doors check the name
    new_name = form.cleaned_data["new_name"]
    try:
        project = project_writes.rename(name, new_name)
    except DomainError as error:
        return _answer(request, errors={name: error.message}, status=error.status)
    return _answer(
        request, sentence=f"Renamed '{name}' to '{project.name}'; its memories moved with it."
    )


@require_POST
@requires_role()
def project_remove(request: HtmxHttpRequest, name: str) -> HttpResponse:
    try:
        project_writes.remove(name)
    except DomainError as error:
        return _answer(request, errors={name: error.message}, status=error.status)
    return _answer(request, sentence=f"Removed project '{name}'.")
