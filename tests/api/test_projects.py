"""/v1/projects: list, add, rename, remove."""

from memories.models import Memory
from projects.models import Project


def test_list_gives_name_created_at_and_memory_count(api, write, project, other_project):
    write("stack", project="webdev")
    write("lint", project="webdev")
    response = api.get("/v1/projects")
    assert response.status_code == 200
    data = response.json()
    assert data["count"] == 2
    assert [(p["name"], p["memory_count"]) for p in data["projects"]] == [
        ("infra", 0),
        ("webdev", 2),
    ]
    assert set(data["projects"][0]) == {"name", "created_at", "memory_count"}
    assert data["projects"][0]["created_at"].endswith("Z")


def test_add_is_201_then_409_and_400_for_a_bad_name(api):
    created = api("POST", "/v1/projects", {"name": "webdev"})
    assert created.status_code == 201
    assert created.json()["name"] == "webdev"
    assert created.json()["memory_count"] == 0
    assert created["Location"] == "/v1/projects/webdev"
    again = api("POST", "/v1/projects", {"name": "webdev"})
    assert again.status_code == 409
    assert again.json() == {
        "error": "A project named 'webdev' already exists.",
        "project": "webdev",
    }
    for body in ({"name": "web dev"}, {"name": ""}, {"name": "x" * 65}, {"name": 5}, {}):
        response = api("POST", "/v1/projects", body)
        assert response.status_code == 400, body
        assert response.json()["field"] == "name"
    assert list(Project.objects.values_list("name", flat=True)) == ["webdev"]


def test_rename_moves_its_memories(api, write, project):
    write("stack", project="webdev")
    response = api("PATCH", "/v1/projects/webdev", {"name": "frontend"})
    assert response.status_code == 200
    assert response.json()["name"] == "frontend"
    assert response.json()["memory_count"] == 1
    assert Memory.objects.get(name="stack").project.name == "frontend"
    assert api.get("/v1/memories/stack", project="frontend").status_code == 200


def test_rename_refusals(api, project, other_project):
    assert api("PATCH", "/v1/projects/nowhere", {"name": "x"}).status_code == 404
    taken = api("PATCH", "/v1/projects/webdev", {"name": "infra"})
    assert taken.status_code == 409
    bad = api("PATCH", "/v1/projects/webdev", {"name": "no/slash"})
    assert bad.status_code == 400
    assert api("PATCH", "/v1/projects/webdev", {}).status_code == 400
    assert set(Project.objects.values_list("name", flat=True)) == {"webdev", "infra"}


def test_remove_is_refused_while_memories_remain(api, write, project):
    write("stack", project="webdev")
    refused = api("DELETE", "/v1/projects/webdev")
    assert refused.status_code == 409
    assert refused.json()["memory_count"] == 1
    api("DELETE", "/v1/memories/stack", project="webdev")
    removed = api("DELETE", "/v1/projects/webdev")
    assert removed.status_code == 200
    assert removed.json() == {"deleted": "webdev"}
    assert api("DELETE", "/v1/projects/webdev").status_code == 404
