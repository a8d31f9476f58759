"""Supersession through /v1: PUT's `supersedes`, the memory's `superseded_by` and `replaces`,
its refusal, and a search ranking the correction first."""

from memories.models import Memory
from memories.writes import doors


def _two_hosts():
    doors.write("db-host", description="The database host is db-1.internal", priority=0)
    doors.write("deploy", description="Deploys go out at night")


def test_put_supersedes_and_both_memories_name_each_other(api):
    _two_hosts()
    response = api(
        "PUT",
        "/v1/memories/db-host-2",
        {"description": "The database host is db-2.internal", "supersedes": "db-host"},
        project="",
    )
    assert response.status_code == 201
    written = response.json()
    assert written["replaces"] == [
        {"name": "db-host", "project": None, "description": "The database host is db-1.internal"}
    ]
    assert any("'db-host' is superseded by 'db-host-2'" in note for note in written["notes"])
    old = api.get("/v1/memories/db-host", project="").json()
    assert old["superseded_by"] == "db-host-2" and old["expired"] is True
    listed = api.get("/v1/memories", project="").json()["memories"]
    assert {m["name"]: m["superseded_by"] for m in listed} == {
        "db-host": "db-host-2",
        "db-host-2": None,
        "deploy": None,
    }


def test_a_fetched_memory_sent_back_keeps_its_supersession(api):
    _two_hosts()
    api("PUT", "/v1/memories/db-host-2", {"description": "db-2", "supersedes": "db-host"})
    fetched = api.get("/v1/memories/db-host").json()
    fetched["body"] = "edited"
    assert api("PUT", "/v1/memories/db-host", fetched).status_code == 200
    assert Memory.objects.get(name="db-host").superseded_by == "db-host-2"


def test_an_unknown_memory_to_supersede_is_400_with_one_sentence(api):
    _two_hosts()
    response = api(
        "PUT", "/v1/memories/db-host-2", {"description": "db-2", "supersedes": "no-such-memory"}
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "There is no memory named 'no-such-memory' in the global tier to supersede: a "
        "memory supersedes one of its own tier.",
        "field": "supersedes",
    }
    assert not Memory.objects.filter(name="db-host-2").exists()


def test_search_ranks_the_correction_above_what_it_supersedes(api):
    _two_hosts()
    doors.write(
        "db-host-2",
        description="The database host is db-2.internal",
        priority=9,
        supersedes="db-host",
    )
    for mode in ("words", "hybrid"):
        hits = api.get("/v1/memories", q="database host", mode=mode).json()["memories"]
        names = [hit["name"] for hit in hits]
        assert names[:2] == ["db-host-2", "db-host"], mode
        assert hits[1]["superseded_by"] == "db-host-2"
        assert hits[1]["score"] <= hits[0]["score"]
