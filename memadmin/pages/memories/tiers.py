"""What the agent of each tier is given: the inline band, the index, and what is listed
nowhere, as the exact text of its [Memory] section."""

from django.conf import settings
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memories.reads.agent_view import TierReads, agent_view
from memories.reads.params import session_project
from projects.models import Project


@require_GET
@requires_role()
def tier_view(request: HtmxHttpRequest) -> HttpResponse:
    """`project` names the session's project; absent or empty, a session on no project."""
    projects = list(Project.objects.order_by("name"))  # the tabs, the session's, row names
    project = session_project(request.GET, among=projects)
    reads = TierReads(timezone.now())
    reads.know_projects(projects)
    view = agent_view(project, reads.now, reads=reads)
    context = {
        "view": view,
        "text": view.text(),
        "project": project,
        "projects": [p.name for p in projects],
        "index_max_bytes": settings.MEMADMIN_INDEX_MAX_BYTES,
        "index_max_entries": settings.MEMADMIN_INDEX_MAX_ENTRIES,
    }
    return render_page(request, "memories/tier.html", context, fragment="tier")
