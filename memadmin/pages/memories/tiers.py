"""What the agent of each tier is given: the inline band, the index, and what is listed
nowhere, as the exact text of its [Memory] section."""

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.http import require_GET

from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memadmin.web.responses import error_response
from memories.reads.agent_view import agent_view
from memories.reads.params import session_project
from memories.rules.errors import DomainError
from projects.models import Project


@require_GET
@requires_role()
def tier_view(request: HtmxHttpRequest) -> HttpResponse:
    """`project` names the session's project; absent or empty, a session on no project."""
    try:
        project = session_project(request.GET)
    except DomainError as error:
        return error_response(request, error.status, error.message)
    view = agent_view(project)
    context = {
        "view": view,
        "text": view.text(),
        "project": project,
        "projects": Project.objects.names(),
        "index_max_bytes": settings.MEMADMIN_INDEX_MAX_BYTES,
        "index_max_entries": settings.MEMADMIN_INDEX_MAX_ENTRIES,
    }
    return render_page(request, "memories/tier.html", context, fragment="tier")
