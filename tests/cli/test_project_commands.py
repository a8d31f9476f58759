"""`manage.py project add|list|rename|remove`."""

import json

import pytest
from django.core.management.base import CommandError

from memories.models import Memory
from projects.models import Project
from tests.cli.conftest import store_state


def test_add_and_list(run, write):
    out, _ = run("project", "add", "webdev")
    assert out == "Added project 'webdev'.\n"
    run("project", "add", "movie")
    write("stack", project="webdev")
    out, _ = run("project", "list")
    header, movie, webdev, summary = out.splitlines()
    assert header.split() == ["NAME", "MEMORIES", "CREATED"]
    assert movie.split() == ["movie", "0", "today"]
    assert webdev.split() == ["webdev", "1", "today"]
    assert summary == "2 projects."
    out, _ = run("project", "list", "--format", "json")
    data = json.loads(out)
    assert [(p["name"], p["memory_count"]) for p in data["projects"]] == [
        ("movie", 0),
        ("webdev", 1),
    ]
    assert data["projects"][0]["created_at"].endswith("Z")


def test_list_with_no_projects(run, db):
    out, _ = run("project", "list")
    assert out == "0 projects.\n"


def test_rename_moves_its_memories_with_it(run, write):
    run("project", "add", "webdev")
    write("stack", project="webdev")
    out, _ = run("project", "rename", "webdev", "frontend")
    assert out == "Renamed project 'webdev' to 'frontend'; its 1 memory moved with it.\n"
    assert Memory.objects.get(name="stack").project_name == "frontend"
    out, _ = run("memory", "list", "--project", "frontend")
    assert "stack" in out


def test_remove_an_empty_project(run, db):
    run("project", "add", "webdev")
    out, _ = run("project", "remove", "webdev")
    assert out == "Removed project 'webdev'.\n"
    assert not Project.objects.exists()


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["add", "webdev"], "A project named 'webdev' already exists"),
        (["add", "bad name"], "A name starts with a letter or digit"),
        (["add", "x" * 65], "A name is at most 64 characters"),
        (["rename", "ghost", "new"], "There is no project named 'ghost'"),
        (["rename", "webdev", "movie"], "A project named 'movie' already exists"),
        (["rename", "webdev", "bad/name"], "A name starts with a letter or digit"),
        (["remove", "webdev"], "Project 'webdev' cannot be removed while 1 memory remains"),
        (["remove", "ghost"], "There is no project named 'ghost'"),
    ],
)
def test_refusals_land_nothing(run, write, args, match):
    run("project", "add", "webdev")
    run("project", "add", "movie")
    write("stack", project="webdev")
    before = store_state()
    with pytest.raises(CommandError, match=match):
        run("project", *args)
    assert store_state() == before
