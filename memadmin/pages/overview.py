"""The overview: memories per tier and what needs attention, each figure a link."""

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memories.reads.overview import overview as store_overview


@require_GET
@requires_role()
def overview(request: HtmxHttpRequest) -> HttpResponse:
    return render_page(request, "memadmin/overview.html", {"overview": store_overview()})
