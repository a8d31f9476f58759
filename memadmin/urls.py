"""The site's URLconf: one include per section; under /v1 every answer is JSON, /mcp is the
MCP endpoint."""

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView

from memadmin.api.responses import json_under_api
from memadmin.api.urls import not_found
from memadmin.pages import errors, live, overview
from memadmin.web.middleware import answers_its_own_body


@csrf_exempt
@answers_its_own_body
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """memadmin.mcp.http's endpoint, loaded by the first request to /mcp: the MCP SDK takes
    most of a second to import, which every command (its system checks load this URLconf)
    and every server process would pay otherwise."""
    from memadmin.mcp import http

    return http.endpoint(request)


urlpatterns = [
    path("v1/", include("memadmin.api.urls")),
    path("v1", not_found),
    path("mcp", mcp_endpoint, name="mcp"),
    path("", overview.overview, name="overview"),
    path("live/events", live.events, name="live-events"),
    path("sign-out/", auth_views.LogoutView.as_view(), name="logout"),
    path("memories/", include("memadmin.pages.memories.urls")),
    # The agent view by its short address, as an auditor would type it.
    path("agent/", RedirectView.as_view(pattern_name="memories:tiers", query_string=True)),
    path("projects/", include("memadmin.pages.projects.urls")),
    path("snapshots/", include("memadmin.pages.snapshots.urls")),
    path("history/", include("memadmin.pages.history.urls")),
    path("", include("memadmin.pages.accounts.urls")),
    path("", include("memadmin.pages.insights.urls")),
]

# Dashboard pages, except under /v1, where every answer is JSON.
handler400 = json_under_api(
    errors.bad_request, 400, "The request was refused as malformed, before reaching the API."
)
handler403 = json_under_api(errors.permission_denied, 403, "This request is not allowed.")
handler404 = json_under_api(
    errors.page_not_found, 404, "There is no API route here; GET /v1/openapi.json lists them."
)
handler500 = json_under_api(
    errors.server_error, 500, "Something failed on the server; its log says what."
)
