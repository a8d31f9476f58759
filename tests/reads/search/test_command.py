"""`manage.py memory search`: the same selector from the command line."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reads.search.conftest import days_ago, set_fields


def run(*args) -> str:
    out = StringIO()
    call_command("memory", "search", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def store(write, project):
    write("heron", description="Heron nests by the lake", priority=2, body="North shore.")
    write("w-heron", project="webdev", description="Heron on the web", tags=["birds"])
    old = write("old-heron", description="Heron count, unchecked", load="search").memory
    set_fields(old, created_at=days_ago(200), verified_at=days_ago(200), read_count=3)
    write("gone", description="Heron ban", expires="2001-01-01")


def test_lines_for_people(store):
    out = run("heron")
    lines = out.splitlines()
    assert lines[0] == "4 memories matching ‘heron’, best first"
    assert lines[1].startswith("heron  [global]  p2  word ")
    assert lines[2] == "    Heron nests by the lake"
    assert "old-heron  [global]  p5  word" in out and "3 reads" in out
    assert "EXPIRED" in out.split("gone  [global]")[1].splitlines()[0]


def test_json_is_the_hits_as_the_api_gives_them(store):
    data = json.loads(run("heron", "--format", "json"))
    assert list(data) == ["memories"]
    first = data["memories"][0]
    assert first["name"] == "heron" and first["matched_by"] == "word"
    assert first["body"] == "North shore." and first["project"] is None
    assert {"score", "scanned_terms", "expired", "read_count", "verified"} <= set(first)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--project", "webdev"], ["w-heron"]),
        (["--project", ""], ["heron", "old-heron", "gone"]),
        (["--expired"], ["gone"]),
        (["--unverified", "90d"], ["old-heron"]),
        (["--tag", "birds"], ["w-heron"]),
        (["--load", "search"], ["old-heron"]),
        (["--limit", "1"], ["heron"]),
    ],
)
def test_filters(store, args, expected):
    data = json.loads(run("heron", "--format", "json", *args))
    assert sorted(m["name"] for m in data["memories"]) == sorted(expected)


def test_several_queries_are_synonyms(store, write):
    write("egret", description="Egret by the pond")
    data = json.loads(run("egret", "heron", "--format", "json", "--project", ""))
    assert sorted(m["name"] for m in data["memories"]) == ["egret", "gone", "heron", "old-heron"]


def test_last_resort_and_scanned_terms_are_said(write):
    write("handler", description="Settings", body="getUserAccountSettingsHandler owns it.")
    write("tokyo", description="東京の天気")
    out = run("AccountSettings")
    assert "the whole query was scanned as text" in out
    assert "found as text: AccountSettings" in out
    assert "found as text: 東京" in run("東京")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["heron", "--project", "nope"], "There is no project named 'nope'."),
        (["heron", "--unverified", "soon"], "unverified: "),
        (["heron", "--limit", "0"], "limit: "),
    ],
)
def test_bad_input_is_one_sentence(store, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_mode_meaning_lists_the_guesses_as_such(write):
    write("deploy-host", description="Production deploys go to host-7 through the bastion")
    out = run("which server receives prod releases", "--mode", "meaning")
    lines = out.splitlines()
    assert lines[1].startswith("deploy-host  [global]  p5  semantic ")
    assert "similar in meaning (0." in lines[1]
    words = run("which server receives prod releases", "--mode", "words").splitlines()
    # No word of the question is in it: `prod` is the start of `Production`.
    assert words[0] == "1 memory matching ‘which server receives prod releases’, best first"
    assert words[1].startswith("deploy-host  [global]  p5  prefix ")


def test_an_unknown_mode_is_a_command_error(write):
    with pytest.raises(CommandError, match="mode is hybrid, words or meaning"):
        run("deploy", "--mode", "fuzzy")
