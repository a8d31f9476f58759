import re

from django.http import HttpRequest
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from memadmin.api import (
    agent_view,
    budget,
    bulk,
    events,
    history,
    insights,
    memories,
    openapi,
    projects,
)
from memadmin.api.responses import error, methods

app_name = "api"


@csrf_exempt
def not_found(request: HttpRequest, **kwargs):
    return error(f"There is no API route {request.path}; GET /v1/openapi.json lists them.", 404)


def route(pattern: str, name: str, **handlers):
    """A /v1 route: a view per method, each taking the query parameters its operation in
    the OpenAPI document declares and refusing any other. A route the document does not
    describe fails here, when the URLs load."""
    documented = "/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", pattern)
    return path(pattern, methods(query=openapi.query_parameters(documented), **handlers), name=name)


urlpatterns = [
    route("memories", "memories", GET=memories.list_memories),
    route(
        "memories/<str:name>",
        "memory",
        GET=memories.get_memory,
        PUT=memories.put_memory,
        DELETE=memories.delete_memory,
    ),
    route("memories/<str:name>/edit", "memory-edit", POST=memories.edit_memory),
    route("memories/<str:name>/read", "memory-read", POST=memories.read_memory),
    route("memories/<str:name>/history", "memory-history", GET=history.memory_history),
    route("memories/<str:name>/graph", "memory-graph", GET=insights.memory_graph),
    route("bulk", "bulk", POST=bulk.bulk_action),
    route("revisions/<int:revision_id>", "revision", GET=history.revision_detail),
    route("revisions/<int:revision_id>/restore", "revision-restore", POST=history.restore_version),
    route("change-sets", "change-sets", GET=history.change_sets),
    route("change-sets/<int:change_set_id>", "change-set", GET=history.change_set_detail),
    route("change-sets/<int:change_set_id>/undo", "change-set-undo", POST=history.undo_change_set),
    route("trash", "trash", GET=history.trash),
    route("trash/<int:trashed_id>", "trashed", DELETE=history.trash_purge),
    route("trash/<int:trashed_id>/restore", "trash-restore", POST=history.trash_restore),
    route("projects", "projects", GET=projects.list_projects, POST=projects.add_project),
    route(
        "projects/<str:name>",
        "project",
        PATCH=projects.rename_project,
        DELETE=projects.remove_project,
    ),
    route("budget", "budget", GET=budget.budget),
    route("agent-view", "agent-view", GET=agent_view.agent_view),
    route("audit", "audit", GET=history.audit),
    route("events", "events", GET=events.events),
    route("graph", "graph", GET=insights.store_graph),
    route("hygiene", "hygiene", GET=insights.hygiene_report),
    route(
        "hygiene/consolidation",
        "consolidation",
        GET=insights.consolidation_plan,
        POST=insights.apply_consolidation,
    ),
    route("openapi.json", "openapi", GET=openapi.openapi_json),
    re_path(r"^.*$", not_found),
]
