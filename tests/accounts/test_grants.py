"""Grants: roles on named tiers for people and tokens, and what they narrow."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from memadmin.accounts import grants, roles, tokens
from memories.models import GLOBAL_TIER, Memory
from memories.reads import facets, find, overview
from memories.reads.filters import MemoryFilters
from memories.rules import reach
from memories.rules.errors import (
    InlineBudgetExceeded,
    MemoryNotFound,
    OutsideGrants,
    TokenRefused,
    UnknownProject,
)
from memories.writes import bulk, doors, history, undo
from projects import writes as project_doors
from projects.models import Project
from tests.api.conftest import Api
from tests.conftest import make_user
from tests.mcp.in_process import call_tool
from tests.pages.conftest import signed_in

MARK = "SECRETMARK-4471"


@pytest.fixture
def store(db):
    web = project_doors.add("webdev")
    vault = project_doors.add("vault")
    doors.write("g-note", description="global note", body="global body")
    doors.write("w-note", project="webdev", description="web note", body="web body")
    doors.write("v-note", project="vault", description="vault note", body=MARK)
    return web, vault


def _names(found) -> set[str]:
    return {memory.name for memory in found.memories}


def test_a_role_on_the_whole_store_is_the_role_group_and_sees_everything(store):
    user = make_user("ann", roles.AUDITOR)
    assert roles.holdings(user).reach() == reach.Reach(None, frozenset())
    call_command("grant", "ann", "operator")
    assert grants.reach_of(user) == reach.EVERYWHERE


def test_a_grant_on_a_project_narrows_the_one_find_read(store):
    web, _vault = store
    user = make_user("otto", None)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    with reach.within(grants.reach_of(user)):
        listed = find.find(find.Question(MemoryFilters()))
        searched = find.find(find.Question(MemoryFilters(), queries=("note",), mode="words"))
        # The project, and the global tier a session on it reads, but never the vault.
        assert _names(listed) == {"w-note", "g-note"}
        assert listed.count == 2
        assert _names(searched) == {"w-note", "g-note"}
        with pytest.raises(UnknownProject):
            find.find(find.Question(MemoryFilters(project="vault")))
    seen = frozenset({web.id, GLOBAL_TIER})
    assert grants.reach_of(user) == reach.Reach(seen, frozenset({web.id}))


def test_a_grant_on_the_global_tier_alone_sees_no_project(store):
    user = make_user("gil", None)
    grants.grant(None, user, roles.AUDITOR, None)
    with reach.within(grants.reach_of(user)):
        assert _names(find.find(find.Question(MemoryFilters()))) == {"g-note"}
        assert Project.objects.names() == []


def test_a_memory_outside_ones_grants_is_not_found_and_one_seen_only_is_refused(store):
    user = make_user("otto", roles.AUDITOR)  # reads everything
    grants.grant(None, user, roles.OPERATOR, "webdev")
    with reach.within(grants.reach_of(user)):
        doors.write("w-note", project="webdev", priority=1)  # granted: lands
        with pytest.raises(OutsideGrants, match="may read the global tier but not change it"):
            doors.write("g-note", priority=1)
        with pytest.raises(OutsideGrants):
            doors.delete("v-note", project="vault")
    limited = make_user("lena", None)
    grants.grant(None, limited, roles.OPERATOR, "webdev")
    with reach.within(grants.reach_of(limited)):
        with pytest.raises(MemoryNotFound):
            doors.delete("v-note")
        with pytest.raises(UnknownProject):
            doors.write("new", project="vault", description="x")
        with pytest.raises(OutsideGrants, match="whole store"):
            project_doors.add("another")
    assert Memory.objects.get(name="g-note").priority != 1
    assert Memory.objects.filter(name="v-note").exists()


def test_a_bulk_action_touching_one_memory_outside_the_grants_is_refused_whole(store):
    user = make_user("otto", roles.AUDITOR)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    ids = list(Memory.objects.filter(name__in=["w-note", "g-note"]).values_list("id", flat=True))
    with reach.within(grants.reach_of(user)):
        result = bulk.set_priority(ids, 0)
    assert not result.applied
    assert [r.memory.name for r in result.refused] == ["g-note"]
    assert not Memory.objects.filter(priority=0).exists()


def test_an_undo_touching_one_memory_outside_the_grants_is_refused_whole(store):
    ids = list(Memory.objects.filter(name__in=["w-note", "g-note"]).values_list("id", flat=True))
    done = bulk.set_priority(ids, 0)
    user = make_user("otto", roles.AUDITOR)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    with reach.within(grants.reach_of(user)), pytest.raises(OutsideGrants):
        undo.undo(done.change_set_id)
    assert Memory.objects.filter(priority=0).count() == 2
    outsider = make_user("vic", None)
    grants.grant(None, outsider, roles.ADMIN, "vault")
    with reach.within(grants.reach_of(outsider)), pytest.raises(Exception) as refused:
        undo.undo(done.change_set_id)
    assert refused.value.status == 404  # a change set partly out of sight is not found


def test_a_token_is_created_within_its_owners_grants_and_shrinks_with_them(store):
    user = make_user("otto", None)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    grants.grant(None, user, roles.AUDITOR, None)
    with pytest.raises(TokenRefused, match="holds no grant on project 'vault'"):
        tokens.create_token(user, "write", places=["webdev", "vault"])
    _token, secret = tokens.create_token(user, "write", places=["webdev"])
    api = Api(secret)
    listed = [m["name"] for m in api.get("/v1/memories").json()["memories"]]
    assert sorted(listed) == ["g-note", "w-note"]  # the project, and the global tier read
    assert api("PUT", "/v1/memories/g-note", {"priority": 1}).status_code == 403
    assert api.get("/v1/memories/v-note").status_code == 404
    grants.revoke(None, user, "webdev")
    answer = api.get("/v1/memories")
    assert answer.status_code == 200
    # The owner lost webdev, so the token did too: the global tier alone is left of it.
    assert [m["name"] for m in answer.json()["memories"]] == ["g-note"]


def test_a_token_writing_outside_its_tiers_is_refused(store):
    user = make_user("otto", roles.OPERATOR)
    _token, secret = tokens.create_token(user, "write", places=["webdev", None])
    api = Api(secret)
    body = {"description": "x"}
    assert api("PUT", "/v1/memories/fresh", body, project="webdev").status_code == 201
    assert api("PUT", "/v1/memories/fresh2", body, project="vault").status_code == 404
    assert api("DELETE", "/v1/memories/v-note", project="vault").status_code == 404
    assert [p["name"] for p in api.get("/v1/projects").json()["projects"]] == ["webdev"]
    assert MARK not in api.get("/v1/budget").content.decode()


def test_grants_changed_during_a_session_hold_from_its_next_request(store):
    user = make_user("otto", roles.OPERATOR)
    client = signed_in(user)
    assert b"v-note" in client.get("/memories/").content
    grants.revoke(None, user, grants.WHOLE_STORE)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    page = client.get("/memories/").content.decode()
    assert "w-note" in page and "g-note" in page
    assert "v-note" not in page and "vault" not in page
    assert client.get("/memories/v-note/?project=vault").status_code == 404
    refused = client.post("/memories/g-note/row/?project=", {"priority": 1}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    assert "may read the global tier but not change it" in refused.content.decode()


def test_the_commands_grant_revoke_and_list(store, capsys):
    make_user("otto", None)
    call_command("grant", "otto", "operator", "--project", "webdev", "--project", "")
    call_command("grant", "otto")
    out = capsys.readouterr().out
    assert "'otto' is now operator on project 'webdev'." in out
    assert "operator on the global tier" in out
    call_command("revoke", "otto", "--project", "webdev")
    assert "'otto' is no longer operator on project 'webdev'." in capsys.readouterr().out
    with pytest.raises(CommandError, match="no project named 'nowhere'"):
        call_command("grant", "otto", "auditor", "--project", "nowhere")
    with pytest.raises(CommandError, match="no account named 'nobody'"):
        call_command("grant", "nobody", "auditor")


def test_apitoken_create_limits_the_token_to_its_projects(store, capsys):
    make_user("otto", roles.OPERATOR)
    call_command("apitoken", "create", "otto", "--scope", "read", "--project", "webdev")
    out = capsys.readouterr().out.strip().splitlines()
    assert "limited to project 'webdev'" in out[0]
    found = Api(out[-1]).get("/v1/memories").json()
    assert sorted(m["name"] for m in found["memories"]) == ["g-note", "w-note"]


def test_the_cli_with_user_reads_and_writes_within_their_grants(store, capsys):
    user = make_user("otto", None)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    call_command("memory", "--user", "otto", "list")
    out = capsys.readouterr().out
    assert "w-note" in out and "g-note" in out and "v-note" not in out
    with pytest.raises(CommandError, match="no project named 'vault'"):
        call_command("memory", "--user", "otto", "show", "v-note", "--project", "vault")
    with pytest.raises(CommandError, match="no account named"):
        call_command("memory", "--user", "nobody", "list")
    with history.acting(label="check"):
        call_command(
            "memory", "--user", "otto", "add", "w2", "--project", "webdev", "--description", "two"
        )
    assert Memory.objects.get(name="w2").project.name == "webdev"


def test_a_reference_from_a_tier_out_of_reach_is_drawn_without_its_name(store):
    doors.write("w-cites", project="webdev", description="cites", references=["g-note"])
    doors.write("v-cites", project="vault", description="vault cites", references=["g-note"])
    user = make_user("otto", None)
    grants.grant(None, user, roles.AUDITOR, "webdev")
    client = signed_in(user)
    data = client.get("/graph/data/").json()
    outside = [node for node in data["nodes"] if node["kind"] == "outside"]
    assert [node["label"] for node in outside] == ["outside your reach"]
    drawn = json.dumps(data)
    assert "vault" not in drawn and MARK not in drawn and "vault note" not in drawn
    around = client.get("/graph/around/g-note/data/?project=").json()
    assert "outside" in {node["kind"] for node in around["nodes"]}
    assert "vault" not in json.dumps(around)


def test_an_mcp_session_on_a_tier_past_the_tokens_grants_is_refused_before_any_tool(store):
    user = make_user("otto", roles.OPERATOR)
    secret = tokens.create_token(user, "write", places=["webdev"])[1]
    for project in ("vault", "nowhere"):  # alike, whether a project holds the name or not
        answer = Client().post(
            f"/mcp?project={project}",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {secret}", "Accept": "application/json"},
        )
        assert answer.status_code == 403
        assert answer.json()["error"]["message"] == (
            f"This token holds no grant on project '{project}', so it cannot open a session there."
        )
    found = call_tool(secret, "memory_search", "/mcp?project=webdev", queries=["note"])
    text = json.dumps(found)
    assert "w-note" in text and "v-note" not in text


def test_the_accounts_page_grants_and_revokes(store):
    admin = make_user("ada", roles.ADMIN)
    otto = make_user("otto", roles.AUDITOR)
    client = signed_in(admin)
    done = client.post(f"/accounts/{otto.id}/grants/", {"role": "operator", "tier": "webdev"})
    assert done.status_code == 302
    assert grants.reach_of(otto).changes(Project.objects.get(name="webdev").id)
    client.post(f"/accounts/{otto.id}/", {"role": "none"})
    page = client.get("/accounts/").content.decode()
    assert "operator on project &#x27;webdev&#x27;" in page
    assert not grants.reach_of(otto).sees(Project.objects.get(name="vault").id)
    client.post(f"/accounts/{otto.id}/grants/", {"tier": "webdev", "revoke": "true"})
    assert grants.reach_of(otto) == reach.NOWHERE
    refused = client.post(f"/accounts/{otto.id}/grants/", {"role": "root", "tier": ""})
    assert refused.status_code == 400
    assert "The role is auditor, operator or admin." in refused.content.decode()
    own = client.post(f"/accounts/{admin.id}/grants/", {"role": "auditor", "tier": ""})
    assert own.status_code == 409


def test_an_mcp_stdio_session_as_a_user_stays_within_their_grants(store):
    user = make_user("otto", None)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    with pytest.raises(CommandError, match="'otto' holds no grant on project 'vault'"):
        call_command("mcp", "--project", "vault", "--user", "otto")
    with pytest.raises(CommandError, match="There is no project named 'nowhere'"):
        call_command("mcp", "--project", "nowhere", "--user", "otto")


def test_the_counts_of_facets_and_overview_hold_only_what_the_grants_reach(store):
    doors.write("v-two", project="vault", description="another", tags=["ops"], load="inline")
    doors.write("w-two", project="webdev", description="second", tags=["ops"])
    user = make_user("otto", None)
    grants.grant(None, user, roles.OPERATOR, "webdev")
    now = timezone.now()
    with reach.within(grants.reach_of(user)):
        found = {facet.key: facet for facet in facets.facets(MemoryFilters(), now)}
        tiers = {value.label: value.count for value in found["project"].values}
        assert tiers == {"global": 1, "webdev": 2}
        assert {value.label: value.count for value in found["tag"].values} == {"ops": 1}
        shown = overview.overview(now)
        assert shown.total == 3
        assert [tier.project for tier in shown.tiers] == [None, "webdev"]
        tagged = {f.key: f for f in facets.facets(MemoryFilters(tag="ops"), now)}
        assert {v.label: v.count for v in tagged["project"].values} == {"webdev": 1}


def test_a_budget_refusal_names_nothing_past_the_writers_grants(store, small_budget):
    doors.write("v-big", project="vault", description="big", body="x" * 60, load="inline")
    user = make_user("gil", None)
    grants.grant(None, user, roles.OPERATOR, None)
    with reach.within(grants.reach_of(user)), pytest.raises(InlineBudgetExceeded) as refused:
        doors.write("g-big", description="big", body="y" * 60, load="inline")
    said = refused.value.message + json.dumps(refused.value.details, default=str)
    assert "a memory outside your reach" in said
    assert "vault" not in said and "v-big" not in said
