import pytest

from memories.reads import lookup
from memories.rules.errors import InvalidField, ProjectExists, ProjectNotEmpty, UnknownProject
from memories.writes import doors
from projects import writes as project_doors
from projects.models import Project
from projects.reads import projects


def test_add_list_with_counts(write, project):
    write("a", project="webdev")
    rows = [p.to_dict() for p in projects()]
    assert rows[0]["name"] == "webdev" and rows[0]["memory_count"] == 1


@pytest.mark.parametrize("name", ["", "../x", "-x", "a b", "x" * 65])
def test_invalid_project_names_are_refused(db, name):
    with pytest.raises(InvalidField):
        project_doors.add(name)
    assert not Project.objects.exists()


def test_add_refuses_an_existing_name(project):
    with pytest.raises(ProjectExists):
        project_doors.add("webdev")


def test_rename_moves_its_memories_with_it(write, project):
    write("stack", project="webdev")
    project_doors.rename("webdev", "frontend")
    assert lookup.locate("stack", "frontend").project_name == "frontend"
    with pytest.raises(UnknownProject):
        lookup.locate("stack", "webdev")


def test_rename_refuses_a_taken_or_invalid_name(project, other_project):
    with pytest.raises(ProjectExists):
        project_doors.rename("webdev", "infra")
    with pytest.raises(InvalidField):
        project_doors.rename("webdev", "bad name")
    with pytest.raises(UnknownProject):
        project_doors.rename("nope", "x")


def test_remove_is_refused_while_memories_remain(write, project):
    write("stack", project="webdev")
    with pytest.raises(ProjectNotEmpty) as error:
        project_doors.remove("webdev")
    assert error.value.details["memory_count"] == 1
    doors.delete("stack", project="webdev")
    project_doors.remove("webdev")
    assert not Project.objects.exists()


def test_names_are_every_projects_name_in_order(db, django_assert_num_queries):
    project_doors.add("webdev")
    project_doors.add("infra")
    with django_assert_num_queries(1):
        assert Project.objects.names() == ["infra", "webdev"]


def test_named_finds_the_project_or_refuses_an_unknown_name(project):
    assert Project.objects.named("webdev") == project
    assert Project.objects.only("id").named("webdev").id == project.id
    with pytest.raises(UnknownProject) as error:
        Project.objects.named("ghost")
    assert (error.value.message, error.value.status) == ("There is no project named 'ghost'.", 404)
