from django.http import HttpRequest
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from memadmin.api import budget, history, insights, memories, openapi, projects
from memadmin.api.responses import error, methods

app_name = "api"


@csrf_exempt
def not_found(request: HttpRequest, **kwargs):
    return error(f"There is no API route {request.path}; GET /v1/openapi.json lists them.", 404)


urlpatterns = [
    path("memories", methods(GET=memories.list_memories), name="memories"),
    path(
        "memories/<str:name>",
        methods(GET=memories.get_memory, PUT=memories.put_memory, DELETE=memories.delete_memory),
        name="memory",
    ),
    path("memories/<str:name>/edit", methods(POST=memories.edit_memory), name="memory-edit"),
    path("memories/<str:name>/read", methods(POST=memories.read_memory), name="memory-read"),
    path("memories/<str:name>/history", methods(GET=history.memory_history), name="memory-history"),
    path("memories/<str:name>/graph", methods(GET=insights.memory_graph), name="memory-graph"),
    path(
        "projects",
        methods(GET=projects.list_projects, POST=projects.add_project),
        name="projects",
    ),
    path(
        "projects/<str:name>",
        methods(PATCH=projects.rename_project, DELETE=projects.remove_project),
        name="project",
    ),
    path("budget", methods(GET=budget.budget), name="budget"),
    path("audit", methods(GET=history.audit), name="audit"),
    path("graph", methods(GET=insights.store_graph), name="graph"),
    path("hygiene", methods(GET=insights.hygiene_report), name="hygiene"),
    path(
        "hygiene/consolidation",
        methods(GET=insights.consolidation_plan, POST=insights.apply_consolidation),
        name="consolidation",
    ),
    path("openapi.json", methods(GET=openapi.openapi_json), name="openapi"),
    re_path(r"^.*$", not_found),
]
