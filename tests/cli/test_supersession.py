"""`manage.py memory add --supersedes`: the write door's supersession from the command line."""

import pytest
from django.core.management.base import CommandError

from memories.models import ChangeSet, Memory


def test_add_supersedes_an_older_fact(run, project):
    run("memory", "add", "tz", "--description", "K4YT3X is in UTC+8", "--project", "webdev")
    out, _ = run(
        "memory",
        "add",
        "tz-now",
        "--description",
        "K4YT3X is in UTC+9",
        "--project",
        "webdev",
        "--supersedes",
        "tz",
    )
    assert "Saved memory 'tz-now' in project 'webdev'" in out
    assert "Note: 'tz' is superseded by 'tz-now'" in out
    assert Memory.objects.get(name="tz").superseded_by == "tz-now"
    assert ChangeSet.objects.get().door == "command"
    listed, _ = run("memory", "list")
    assert "[superseded by 'tz-now'] K4YT3X is in UTC+8" in listed
    found, _ = run("memory", "search", "K4YT3X", "--mode", "words")
    assert "SUPERSEDED by 'tz-now'" in found


def test_a_refusal_is_a_command_error(run):
    run("memory", "add", "tz", "--description", "K4YT3X is in UTC+8")
    with pytest.raises(CommandError, match="'tz' cannot supersede itself."):
        run("memory", "add", "tz", "--force", "--supersedes", "tz")
    assert Memory.objects.get(name="tz").superseded_by is None
