"""What the agent of each tier is given: the inline band, the index, and what is listed
nowhere, as the exact text of its [Memory] section; as it stands, or as it stood at a moment
(`at`), and what changed in it since another (`since`)."""

from django.conf import settings
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memories.reads.agent_view_query import AgentViewForm, answer
from memories.reads.params import session_project
from memories.rules.errors import NotRecorded
from projects.models import Project

# What a browser's datetime-local input shows, to the second, in the server's time zone.
LOCAL_INPUT = "%Y-%m-%dT%H:%M:%S"


@require_GET
@requires_role()
def tier_view(request: HtmxHttpRequest) -> HttpResponse:
    """`project` names the session's project; absent or empty, a session on no project."""
    projects = list(Project.objects.order_by("name"))  # the tabs, the session's, row names
    form = AgentViewForm(request.GET)
    found = None
    if form.is_valid():
        try:
            found = answer(form.cleaned_data, projects)
        except NotRecorded as refusal:
            form.add_error(refusal.details.get("field"), refusal.message)
    if found is None:  # the refusal beside the section as it stands
        project = session_project(request.GET, among=projects)
        asked = {"project": project.name if project else None, "at": None, "since": None}
        found = answer(asked, projects)
    moments = {
        name: timezone.localtime(form.cleaned_data[name]).strftime(LOCAL_INPUT)
        for name in ("at", "since")
        if form.is_valid() and form.cleaned_data.get(name)
    }
    context = {
        "answer": found,
        "view": found.view,
        "text": found.text(),
        "form": form,
        "moments": moments,
        "project": Project(name=found.project) if found.project else None,
        "projects": [p.name for p in projects],
        "index_max_bytes": settings.MEMADMIN_INDEX_MAX_BYTES,
        "index_max_entries": settings.MEMADMIN_INDEX_MAX_ENTRIES,
        "time_zone": settings.TIME_ZONE,
    }
    status = 400 if form.errors else 200
    return render_page(request, "memories/tier.html", context, fragment="tier", status=status)
