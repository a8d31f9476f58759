"""A memory's version on /v1: what its ETag covers, If-Match and If-None-Match (RFC 9110)."""

import pytest

from memories.models import Memory


def test_an_agent_read_between_a_get_and_a_put_keeps_the_if_match(api, read_api, write):
    write("deploy-host", body="host-7")
    fetched = api.get("/v1/memories/deploy-host")
    assert read_api("POST", "/v1/memories/deploy-host/read").status_code == 200
    assert Memory.objects.get(name="deploy-host").read_count == 1
    assert api.get("/v1/memories/deploy-host")["ETag"] == fetched["ETag"]
    sent_back = {**fetched.json(), "priority": 2}
    put = api("PUT", "/v1/memories/deploy-host", sent_back, headers={"If-Match": fetched["ETag"]})
    assert put.status_code == 200
    assert put.json()["priority"] == 2


def test_a_content_change_between_a_get_and_a_put_is_still_412(api, write):
    write("deploy-host", body="host-7")
    etag = api.get("/v1/memories/deploy-host")["ETag"]
    api("POST", "/v1/memories/deploy-host/edit", {"old_string": "7", "new_string": "8"})
    stale = api("PUT", "/v1/memories/deploy-host", {"priority": 2}, headers={"If-Match": etag})
    assert stale.status_code == 412
    assert "changed since you read it" in stale.json()["error"]
    assert Memory.objects.get(name="deploy-host").priority == 5


@pytest.mark.parametrize(
    "change",
    [
        {"description": "moved hosts"},
        {"tags": ["ops"]},
        {"references": ["runbook"]},
        {"priority": 1},
        {"load": "inline"},
        {"source": "a ticket"},
        {"expires": "2099-01-01"},
        {"verified": True},
    ],
)
def test_every_field_a_write_sets_moves_the_etag(api, write, change):
    write("deploy-host", body="host-7")
    etag = api.get("/v1/memories/deploy-host")["ETag"]
    api("PUT", "/v1/memories/deploy-host", change)
    assert api.get("/v1/memories/deploy-host")["ETag"] != etag


def test_the_document_says_what_the_etag_covers(api):
    put = api.get("/v1/openapi.json").json()["paths"]["/v1/memories/{name}"]["put"]
    etag = put["responses"]["200"]["headers"]["ETag"]["description"]
    assert "description, body, tags" in etag
    assert "Not read_count" in etag


def test_if_match_star_on_a_missing_memory_is_412_and_creates_nothing(api, write, project):
    response = api("PUT", "/v1/memories/nope", {"description": "x"}, headers={"If-Match": "*"})
    assert response.status_code == 412
    assert response.json()["error"] == (
        "There is no memory named 'nope' in the global tier for If-Match to match; leave "
        "If-Match out to create it."
    )
    in_project = api(
        "PUT",
        "/v1/memories/nope",
        {"description": "x"},
        headers={"If-Match": "*"},
        project="webdev",
    )
    assert in_project.status_code == 412
    assert "in project 'webdev'" in in_project.json()["error"]
    assert not Memory.objects.filter(name="nope").exists()
    write("tz")
    assert api(
        "PUT", "/v1/memories/tz", {"priority": 1}, headers={"If-Match": "*"}
    ).status_code == (200)


def test_if_match_takes_a_list_and_never_a_weak_tag(api, write):
    write("tz")
    etag = api.get("/v1/memories/tz")["ETag"]
    listed = api("PUT", "/v1/memories/tz", {"priority": 1}, headers={"If-Match": f'"x", {etag}'})
    assert listed.status_code == 200
    weak = api(
        "PUT", "/v1/memories/tz", {"priority": 2}, headers={"If-Match": "W/" + listed["ETag"]}
    )
    assert weak.status_code == 412


def test_if_none_match_star_creates_only(api, write, project):
    created = api(
        "PUT", "/v1/memories/tz", {"description": "UTC+9"}, headers={"If-None-Match": "*"}
    )
    assert created.status_code == 201
    again = api("PUT", "/v1/memories/tz", {"description": "UTC+1"}, headers={"If-None-Match": "*"})
    assert again.status_code == 412
    assert again.json()["error"] == (
        "The global tier already holds a memory named 'tz', and If-None-Match: * only creates; "
        "choose another name, or leave the header out to update it."
    )
    assert again.json()["etag"] == created["ETag"]
    assert Memory.objects.get(name="tz").description == "UTC+9"


def test_if_none_match_star_names_the_tier_that_holds_the_name(api, write, project):
    write("notes", project="webdev")
    refused = api(
        "PUT", "/v1/memories/notes", {"body": "x"}, headers={"If-None-Match": "*"}, project="webdev"
    )
    assert refused.status_code == 412
    assert refused.json()["error"].startswith(
        "Project 'webdev' already holds a memory named 'notes'"
    )
    assert Memory.objects.get(name="notes").body == ""


def test_the_document_declares_if_none_match_on_put(api):
    put = api.get("/v1/openapi.json").json()["paths"]["/v1/memories/{name}"]["put"]
    headers = {p["name"]: p for p in put["parameters"] if p["in"] == "header"}
    assert "create only" in headers["If-None-Match"]["description"]
    assert "matches nothing (412)" in headers["If-Match"]["description"]
