"""/v1/memories: every route and every status of the contract."""

import datetime as dt

from django.utils import timezone

from memories.models import Memory
from memories.writes import doors
from tests.conftest import backdate

# The contract's memory, as the design words it.
MEMORY_KEYS = {
    "name", "project", "description", "priority", "load", "tags", "references", "source",
    "created_at", "updated_at", "verified_at", "expires_at", "read_count", "expired",
    "superseded_by",
}  # fmt: skip


# --- list -------------------------------------------------------------------------------


def test_list_is_index_order_with_count_and_the_listed_fields(api, write):
    write("old-rule", priority=1)
    write("new-note", priority=5)
    write("fresh-rule", priority=1)
    response = api.get("/v1/memories")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert [m["name"] for m in data["memories"]] == ["fresh-rule", "old-rule", "new-note"]
    assert data["count"] == 3
    assert set(data["memories"][0]) == MEMORY_KEYS
    assert data["summary"] == "3 memories, most important first"


def test_list_limit_offset_and_count_of_all_matches(api, write):
    for number in range(7):
        write(f"m{number}", priority=number)
    data = api.get("/v1/memories", limit=2, offset=3).json()
    assert [m["name"] for m in data["memories"]] == ["m3", "m4"]
    assert data["count"] == 7


def test_list_default_limit_is_50(api, write):
    for number in range(55):
        write(f"m{number:02d}")
    data = api.get("/v1/memories").json()
    assert len(data["memories"]) == 50
    assert data["count"] == 55


def test_list_project_absent_empty_and_named(api, write, project):
    write("g")
    write("p", project="webdev")
    every = api.get("/v1/memories").json()
    assert {(m["name"], m["project"]) for m in every["memories"]} == {("g", None), ("p", "webdev")}
    assert [m["name"] for m in api.get("/v1/memories", project="").json()["memories"]] == ["g"]
    assert [m["name"] for m in api.get("/v1/memories", project="webdev").json()["memories"]] == [
        "p"
    ]


def test_list_filters(api, write):
    now = timezone.now()
    write("cites", references=["deploy-host"], tags=["infra"])
    write("gone", expires=(now - dt.timedelta(days=1)).isoformat(), load="search")
    backdate(write("stale", load="inline", body="x").memory, days=200)

    def names(**query):
        response = api.get("/v1/memories", **query)
        assert response.status_code == 200, response.json()
        return {m["name"] for m in response.json()["memories"]}

    assert names(referencing="deploy-host") == {"cites"}
    assert names(tag="infra") == {"cites"}
    assert names(expired="true") == {"gone"}
    assert names(expired="false") == {"cites", "stale"}
    assert names(unverified="90d") == {"stale"}
    assert names(load="inline") == {"stale"}
    assert names(load="search", expired="true") == {"gone"}
    listed = api.get("/v1/memories", expired="true").json()["memories"]
    assert listed[0]["expired"] is True
    summary = api.get("/v1/memories", referencing="deploy-host").json()["summary"]
    assert summary == "1 memory referencing ‘deploy-host’, most important first"


def test_list_unknown_project_is_404(api):
    response = api.get("/v1/memories", project="nowhere")
    assert response.status_code == 404
    assert response.json() == {
        "error": "There is no project named 'nowhere'.",
        "project": "nowhere",
    }


def test_list_bad_parameters_are_400_with_the_field(api):
    for query, field in [
        ({"unverified": "soon"}, "unverified"),
        ({"expired": "maybe"}, "expired"),
        ({"limit": "0"}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"load": "sometimes"}, "load"),
        ({"project": "bad name"}, "project"),
    ]:
        response = api.get("/v1/memories", **query)
        assert response.status_code == 400, query
        assert response.json()["field"] == field
        assert response.json()["error"].startswith(f"{field}: ")


# --- get --------------------------------------------------------------------------------


def test_get_gives_body_backlinks_and_an_etag(api, write):
    write("deploy-host", body="host-7")
    write("runbook", description="How to deploy", references=["deploy-host"])
    response = api.get("/v1/memories/deploy-host")
    assert response.status_code == 200
    data = response.json()
    assert set(data) == MEMORY_KEYS | {"body", "referenced_by", "replaces"}
    assert data["body"] == "host-7"
    assert data["referenced_by"] == [
        {"name": "runbook", "project": None, "description": "How to deploy"}
    ]
    assert response["ETag"] == Memory.objects.get(name="deploy-host").etag


def test_get_a_name_several_projects_hold_is_409_listing_them(api, write, project, other_project):
    write("notes", project="webdev")
    write("notes", project="infra")
    response = api.get("/v1/memories/notes")
    assert response.status_code == 409
    assert response.json()["projects"] == ["infra", "webdev"]
    assert "project=" in response.json()["error"]
    named = api.get("/v1/memories/notes", project="infra")
    assert named.status_code == 200
    assert named.json()["project"] == "infra"


def test_get_missing_memory_or_project_is_404(api, write, project):
    write("g")
    assert api.get("/v1/memories/absent").status_code == 404
    assert api.get("/v1/memories/g", project="webdev").status_code == 404
    assert api.get("/v1/memories/g", project="nowhere").json()["project"] == "nowhere"
    assert api.get("/v1/memories/g", project="").status_code == 200


def test_reads_through_the_api_never_count(api, write):
    write("rule", body="text")
    api.get("/v1/memories/rule")
    api.get("/v1/memories")
    api.get("/v1/budget")
    assert Memory.objects.get(name="rule").read_count == 0


# --- put --------------------------------------------------------------------------------


def test_put_creates_with_201_and_updates_with_200(api):
    created = api("PUT", "/v1/memories/tz", {"description": "K4YT3X is in UTC+8", "priority": 2})
    assert created.status_code == 201
    data = created.json()
    assert set(data) == MEMORY_KEYS | {"body", "referenced_by", "replaces", "notes"}
    assert (data["name"], data["project"], data["priority"], data["load"]) == (
        "tz",
        None,
        2,
        "index",
    )
    assert created["ETag"] == Memory.objects.get(name="tz").etag
    assert created["Location"] == "/v1/memories/tz?project="
    updated = api("PUT", "/v1/memories/tz", {"description": "K4YT3X is in UTC+9"})
    assert updated.status_code == 200
    assert updated.json()["description"] == "K4YT3X is in UTC+9"
    assert updated.json()["created_at"] == data["created_at"]


def test_put_create_needs_a_description(api):
    response = api("PUT", "/v1/memories/tz", {"body": "text"})
    assert response.status_code == 400
    assert response.json()["field"] == "description"
    assert not Memory.objects.exists()


def test_put_omitted_and_null_fields_keep_what_is_there(api, write):
    write(
        "tz",
        body="Body",
        tags=["people"],
        priority=2,
        load="inline",
        references=["alice"],
        source="chat",
        expires="2999-01-01",
    )
    before = api.get("/v1/memories/tz").json()
    response = api(
        "PUT",
        "/v1/memories/tz",
        {"description": "Reworded", "body": None, "tags": None, "priority": None, "source": " "},
    )
    after = response.json()
    assert response.status_code == 200
    for key in ("body", "tags", "priority", "load", "references", "source", "expires_at"):
        assert after[key] == before[key], key
    assert after["description"] == "Reworded"


def test_put_empty_string_clears_body_and_expiry_and_empty_list_clears_lists(api, write):
    write("tz", body="Body", tags=["a"], references=["b"], expires="2999-01-01")
    data = api(
        "PUT", "/v1/memories/tz", {"body": "", "expires": "", "tags": [], "references": []}
    ).json()
    assert (data["body"], data["expires_at"], data["tags"], data["references"]) == (
        "",
        None,
        [],
        [],
    )


def test_put_expiry_forms(api, settings):
    settings.TIME_ZONE = "UTC"
    data = api("PUT", "/v1/memories/freeze", {"description": "No deploys", "expires": "2999-10-25"})
    assert data.json()["expires_at"] == "2999-10-26T00:00:00Z"
    again = api("PUT", "/v1/memories/freeze", {"expires_at": "2999-10-25T18:00:00+02:00"})
    assert again.json()["expires_at"] == "2999-10-25T16:00:00Z"
    past = api("PUT", "/v1/memories/freeze", {"expires": "2000-01-01"})
    assert past.json()["expired"] is True


def test_a_fetched_memory_put_back_is_a_valid_update(api, write):
    write("tz", body="Body", tags=["people"])
    fetched = api.get("/v1/memories/tz").json()
    fetched["description"] = "Changed"
    response = api("PUT", "/v1/memories/tz", fetched)
    assert response.status_code == 200
    assert response.json()["description"] == "Changed"
    assert response.json()["body"] == "Body"


def test_put_with_a_name_other_than_the_url_is_400(api, write):
    write("tz")
    response = api("PUT", "/v1/memories/tz", {"name": "other"})
    assert response.status_code == 400
    assert response.json()["field"] == "name"


def test_put_project_query_addresses_the_tier(api, write, project):
    write("stack", project="webdev", description="Uses pnpm")
    response = api("PUT", "/v1/memories/stack", {"priority": 1}, project="webdev")
    assert response.status_code == 200
    assert response.json()["project"] == "webdev"
    created = api("PUT", "/v1/memories/lint", {"description": "Ruff"}, project="webdev")
    assert created.status_code == 201
    assert created.json()["project"] == "webdev"
    assert created["Location"] == "/v1/memories/lint?project=webdev"


def test_put_project_key_moves_the_memory_and_null_is_global(api, write, project):
    write("stack", description="Uses pnpm", body="detail", priority=3)
    moved = api("PUT", "/v1/memories/stack", {"project": "webdev"})
    assert moved.status_code == 200
    assert (moved.json()["project"], moved.json()["body"], moved.json()["priority"]) == (
        "webdev",
        "detail",
        3,
    )
    back = api("PUT", "/v1/memories/stack", {"project": None}, project="webdev")
    assert back.json()["project"] is None
    assert Memory.objects.get(name="stack").project_id is None


def test_put_verified_true_stamps_verified_at(api, write):
    backdate(write("tz").memory, days=100)
    before = api.get("/v1/memories/tz").json()
    unverified = api("PUT", "/v1/memories/tz", {"priority": 3})
    assert unverified.json()["verified_at"] == before["verified_at"]
    verified = api("PUT", "/v1/memories/tz", {"verified": True})
    assert verified.json()["verified_at"] > before["verified_at"]
    assert api("PUT", "/v1/memories/tz", {"verified": "yes"}).status_code == 400


def test_put_if_match(api, write):
    write("tz")
    etag = api.get("/v1/memories/tz")["ETag"]
    stale = api("PUT", "/v1/memories/tz", {"priority": 1}, headers={"If-Match": '"stale"'})
    assert stale.status_code == 412
    assert stale.json()["etag"] == etag
    assert Memory.objects.get(name="tz").priority == 5
    fresh = api("PUT", "/v1/memories/tz", {"priority": 1}, headers={"If-Match": etag})
    assert fresh.status_code == 200
    assert fresh["ETag"] != etag
    assert (
        api("PUT", "/v1/memories/tz", {"priority": 2}, headers={"If-Match": "*"}).status_code == 200
    )
    missing = api("PUT", "/v1/memories/new", {"description": "x"}, headers={"If-Match": etag})
    assert missing.status_code == 412


def test_put_past_the_inline_budget_is_409_with_the_data_and_lands_nothing(api, write, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("handbook", load="inline", body="h" * 60)
    write("deploy", load="inline", body="d" * 30)
    response = api(
        "PUT", "/v1/memories/tone", {"description": "Tone", "load": "inline", "body": "t" * 20}
    )
    assert response.status_code == 409
    data = response.json()
    assert data["total_bytes"] == 110
    assert data["budget_bytes"] == 100
    assert data["largest"] == [
        {"name": "handbook", "project": None, "bytes": 60},
        {"name": "deploy", "project": None, "bytes": 30},
        {"name": "tone", "project": None, "bytes": 20},
    ]
    assert data["error"].startswith("inline memories would total")
    assert data["band"] is None and "in the global band;" in data["error"]
    assert not Memory.objects.filter(name="tone").exists()


def test_a_budget_refusal_names_the_band_it_would_pass(api, write, project, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("big", project="webdev", load="inline", body="w" * 95)
    response = api(
        "PUT", "/v1/memories/small", {"description": "x", "load": "inline", "body": "g" * 10}
    )
    data = response.json()
    assert response.status_code == 409 and data["band"] == "webdev"
    assert "in the webdev band (global + webdev); shorten 'big' (0.1 KiB)" in data["error"]
    assert data["largest"][0] == {"name": "big", "project": "webdev", "bytes": 95}


def test_put_name_clash_across_tiers_is_409(api, write, project):
    write("stack", project="webdev")
    response = api("PUT", "/v1/memories/stack", {"description": "x"}, project="")
    assert response.status_code == 409
    assert "choose another name" in response.json()["error"]


def test_put_to_an_unknown_project_is_404(api):
    response = api("PUT", "/v1/memories/x", {"description": "x"}, project="nowhere")
    assert response.status_code == 404
    moved = api("PUT", "/v1/memories/x", {"description": "x", "project": "nowhere"})
    assert moved.status_code == 404
    assert not Memory.objects.exists()


def test_put_invalid_fields_are_400_naming_the_field(api, write):
    write("tz")
    for body, field in [
        ({"priority": 101}, "priority"),
        ({"priority": 1.5}, "priority"),
        ({"load": "always"}, "load"),
        ({"tags": "a,b"}, "tags"),
        ({"references": [f"r{n}" for n in range(21)]}, "references"),
        ({"expires": "next week"}, "expires"),
        ({"expires": "2026-02-30"}, "expires"),
        ({"description": 5}, "description"),
        ({"body": "a\x00b"}, "body"),
        ({"project": 5}, "project"),
        ({"colour": "red"}, "colour"),
        ({"expires": "2999-01-01", "expires_at": "2998-01-01"}, "expires"),
    ]:
        response = api("PUT", "/v1/memories/tz", body)
        assert response.status_code == 400, body
        assert response.json()["field"] == field, body
    assert api.get("/v1/memories/tz").json()["priority"] == 5


def test_put_notes_a_long_or_near_duplicate_description(api, write):
    write("alice-timezone", description="Alice is in the Europe/Berlin time zone")
    near = api(
        "PUT", "/v1/memories/alice-tz", {"description": "Alice is in Europe/Berlin time zone"}
    )
    assert any("alice-timezone" in note for note in near.json()["notes"])
    long = api("PUT", "/v1/memories/long", {"description": "word " * 60})
    assert any("characters" in note for note in long.json()["notes"])


# --- edit -------------------------------------------------------------------------------


def test_edit_replaces_exactly_once(api, write):
    write("rule", body="Deploy on Tuesdays.\nNever on Fridays.")
    response = api(
        "POST", "/v1/memories/rule/edit", {"old_string": "Tuesdays", "new_string": "Mondays"}
    )
    assert response.status_code == 200
    data = response.json()
    assert data["body"] == "Deploy on Mondays.\nNever on Fridays."
    assert data["replacements"] == 1
    assert "Mondays" in data["context"]
    assert response["ETag"] == Memory.objects.get(name="rule").etag


def test_edit_no_match_or_ambiguous_is_400(api, write):
    write("rule", body="a a")
    missing = api("POST", "/v1/memories/rule/edit", {"old_string": "b", "new_string": "c"})
    assert missing.status_code == 400
    assert missing.json()["matches"] == 0
    twice = api("POST", "/v1/memories/rule/edit", {"old_string": "a", "new_string": "c"})
    assert twice.status_code == 400
    assert twice.json()["matches"] == 2
    assert Memory.objects.get(name="rule").body == "a a"
    every = api(
        "POST",
        "/v1/memories/rule/edit",
        {"old_string": "a", "new_string": "c", "replace_all": True},
    )
    assert every.json()["body"] == "c c"


def test_edit_honours_if_match_and_verified(api, write):
    backdate(write("rule", body="one").memory, days=30)
    before = api.get("/v1/memories/rule")
    stale = api(
        "POST",
        "/v1/memories/rule/edit",
        {"old_string": "one", "new_string": "two"},
        headers={"If-Match": '"stale"'},
    )
    assert stale.status_code == 412
    done = api(
        "POST",
        "/v1/memories/rule/edit",
        {"old_string": "one", "new_string": "two", "verified": True},
        headers={"If-Match": before["ETag"]},
    )
    assert done.status_code == 200
    assert done.json()["verified_at"] > before.json()["verified_at"]


def test_edit_past_the_inline_budget_is_409(api, write, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 10
    write("rule", load="inline", body="short")
    response = api(
        "POST", "/v1/memories/rule/edit", {"old_string": "short", "new_string": "much longer"}
    )
    assert response.status_code == 409
    assert response.json()["total_bytes"] == 11
    assert Memory.objects.get(name="rule").body == "short"


def test_edit_missing_memory_is_404(api):
    response = api("POST", "/v1/memories/none/edit", {"old_string": "a", "new_string": "b"})
    assert response.status_code == 404


# --- read -------------------------------------------------------------------------------


def test_read_counts_and_captions(api, write):
    backdate(write("deploy-host", body="host-7", description="Where deploys go").memory, days=47)
    write("runbook", references=["deploy-host", "https://wiki"])
    response = api("POST", "/v1/memories/runbook/read")
    assert response.status_code == 200
    data = response.json()
    assert data["read_count"] == 1
    assert data["resolved_references"] == [
        {"reference": "deploy-host", "project": None, "description": "Where deploys go"},
        {"reference": "https://wiki", "project": None, "description": None},
    ]
    host = api("POST", "/v1/memories/deploy-host/read").json()
    assert host["caption"].startswith("Recorded 47 days ago, not verified since.")
    assert host["body"] == "host-7"
    assert host["referenced_by"] == [
        {"name": "runbook", "project": None, "description": "about runbook"}
    ]
    assert Memory.objects.get(name="runbook").read_count == 1


def test_read_pages_long_bodies(api, write):
    write("long", body="x" * 20_000)
    first = api("POST", "/v1/memories/long/read").json()
    assert (len(first["body"]), first["offset"], first["next_offset"]) == (16_000, 0, 16_000)
    rest = api("POST", "/v1/memories/long/read", {"offset": 16_000}).json()
    assert (len(rest["body"]), rest["next_offset"]) == (4_000, None)
    assert api("POST", "/v1/memories/long/read", {"offset": -1}).status_code == 400


def test_read_is_allowed_to_a_read_token(read_api, write):
    write("rule")
    assert read_api("POST", "/v1/memories/rule/read").status_code == 200
    assert Memory.objects.get(name="rule").read_count == 1


# --- delete -----------------------------------------------------------------------------


def test_delete_names_those_still_citing_it(api, write):
    write("deploy-host")
    write("runbook", description="How to deploy", references=["deploy-host"])
    response = api("DELETE", "/v1/memories/deploy-host")
    assert response.status_code == 200
    assert response.json() == {
        "deleted": "deploy-host",
        "project": None,
        "referenced_by": [{"name": "runbook", "project": None, "description": "How to deploy"}],
    }
    assert Memory.objects.get(name="runbook").references == ["deploy-host"]
    assert api("DELETE", "/v1/memories/deploy-host").status_code == 404


def test_delete_in_a_project_and_if_match(api, write, project, other_project):
    write("notes", project="webdev")
    write("notes", project="infra")
    assert api("DELETE", "/v1/memories/notes").status_code == 409
    stale = api("DELETE", "/v1/memories/notes", headers={"If-Match": '"x"'}, project="infra")
    assert stale.status_code == 412
    gone = api("DELETE", "/v1/memories/notes", project="infra")
    assert gone.json()["project"] == "infra"
    assert list(Memory.objects.values_list("project__name", flat=True)) == ["webdev"]


def test_write_responses_carry_the_etag_a_get_would(api, write):
    created = api("PUT", "/v1/memories/tz", {"description": "x"})
    assert created["ETag"] == api.get("/v1/memories/tz")["ETag"]
    doors.write("tz", priority=1)
    assert api.get("/v1/memories/tz")["ETag"] != created["ETag"]


def test_every_single_memory_route_refuses_an_ambiguous_name(api, write, project, other_project):
    write("notes", project="webdev", body="a")
    write("notes", project="infra", body="a")
    before = list(Memory.objects.order_by("id").values())
    for method, path, body in [
        ("GET", "/v1/memories/notes", None),
        ("PUT", "/v1/memories/notes", {"priority": 1}),
        ("POST", "/v1/memories/notes/edit", {"old_string": "a", "new_string": "b"}),
        ("POST", "/v1/memories/notes/read", None),
        ("DELETE", "/v1/memories/notes", None),
    ]:
        response = api(method, path, body)
        assert response.status_code == 409, method + path
        assert response.json()["projects"] == ["infra", "webdev"]
    assert list(Memory.objects.order_by("id").values()) == before
