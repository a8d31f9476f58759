"""`memory list` with the date ranges and --changed-by, and a bad value as a command error."""

import json

import pytest
from django.contrib.auth.models import User
from django.core.management.base import CommandError

from memories.reads.filters import DATES
from memories.writes import doors, history
from tests import conftest


@pytest.fixture
def dated(db):
    def write(name, description):
        with history.acting(door=history.COMMAND, label=f"a script of {name}"):
            doors.write(name, description=description)

    conftest.dated(write=write)


@pytest.mark.parametrize("name", [name for name, _, _ in DATES])
def test_list_each_range(run, dated, name):
    end = "until" if name == "expires" else "since"
    out, _ = run("memory", "list", f"--{name}-{end}", "7d", "--format", "json")
    assert [m["name"] for m in json.loads(out)["memories"]] == ["fresh"]
    out, _ = run("memory", "list", f"--{name}-since", "2000-01-01")
    assert out.splitlines()[-1].startswith("2 memories")


def test_list_changed_by(run, dated):
    alice = User.objects.create_user("alice")
    with history.acting(door=history.PAGE, user=alice):
        doors.write("old", body="edited by alice")
    out, _ = run("memory", "list", "--changed-by", "alice", "--format", "json")
    assert [m["name"] for m in json.loads(out)["memories"]] == ["old"]
    out, _ = run("memory", "list", "--changed-by", "nobody")
    assert out.startswith("0 memories changed by nobody")


def test_a_bad_value_is_a_command_error(run, dated):
    with pytest.raises(CommandError, match="recorded_since: a date .* is expected, not 'soon'"):
        run("memory", "list", "--recorded-since", "soon")
