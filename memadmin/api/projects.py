"""/v1/projects: list, add, rename (its memories move with it), remove."""

from django.http import HttpRequest
from django.urls import reverse

from memadmin.api.auth import READ, WRITE, authorize
from memadmin.api.responses import json_body, ok
from memories.rules.errors import BadRequest
from projects import reads as project_reads
from projects import writes as project_writes


def _project_dict(name: str) -> dict:
    return project_reads.projects().get(name=name).to_dict()


def _name_field(request: HttpRequest) -> str:
    data = json_body(request, allowed={"name"})
    if "name" not in data:
        raise BadRequest('The body names the project: {"name": ...}.', field="name")
    return data["name"]


@authorize(READ)
def list_projects(request: HttpRequest):
    projects = [project.to_dict() for project in project_reads.projects()]
    return ok({"projects": projects, "count": len(projects)})


@authorize(WRITE)
def add_project(request: HttpRequest):
    project = project_writes.add(_name_field(request))
    response = ok(_project_dict(project.name), 201)
    response["Location"] = reverse("api:project", args=[project.name])
    return response


@authorize(WRITE)
def rename_project(request: HttpRequest, name: str):
    project = project_writes.rename(name, _name_field(request))
    return ok(_project_dict(project.name))


@authorize(WRITE)
def remove_project(request: HttpRequest, name: str):
    project_writes.remove(name)
    return ok({"deleted": name})
