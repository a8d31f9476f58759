"""What an agent did over MCP, as the dashboard shows it: the audit log and a memory's History
tab name the mcp door and the token's user; the index resource is the tier view's text. The
requests go through the real /mcp view and the SDK in this process, so the pages read the same
test database."""

import json

import pytest
from django.test import Client
from django.utils.html import escape

from memadmin.accounts import roles, tokens
from memories.models import Revision
from memories.reads.agent_view import agent_view
from tests.conftest import make_user
from tests.mcp.in_process import call_tool as _tool
from tests.pages.conftest import signed_in


@pytest.fixture
def token(db, project):
    return tokens.create_token(make_user("agent", roles.OPERATOR), "write", "laptop")[1]


@pytest.fixture
def auditor_page(db):
    return signed_in(make_user("alice", roles.AUDITOR))


def test_the_audit_log_and_the_history_tab_show_the_mcp_door(token, auditor_page):
    _tool(token, "memory_write", "/mcp?project=webdev", name="tz", description="UTC+8")
    _tool(token, "memory_edit", "/mcp?project=webdev", name="tz", old_string="", new_string="x")
    _tool(token, "memory_write", "/mcp?project=webdev", name="tz", body="Lives in Taipei.")
    result = _tool(token, "memory_delete", name="tz")
    assert result["isError"] is True  # not in the global tier's sight
    assert [(r.action, r.door, r.username) for r in Revision.objects.order_by("id")] == [
        ("create", "mcp", "agent"),
        ("update", "mcp", "agent"),
    ]
    auditor = auditor_page
    log = auditor.get("/history/?door=mcp").content.decode()
    assert log.count('<td data-label="Door">MCP</td>') == 2
    assert "agent (token “laptop” mem_" in log  # the user and the token's label
    tab = auditor.get("/memories/tz/history/?project=webdev").content.decode()
    assert tab.count("through the MCP door") == 2
    assert 'value="mcp" selected' in log


def test_a_read_over_mcp_counts_and_records_nothing(token):
    _tool(token, "memory_write", name="note", description="A note", body="text")
    result = _tool(token, "memory_read", name="note")
    assert result["isError"] is False
    assert result["content"][0]["text"].endswith("\n\ntext")
    assert Revision.objects.count() == 1
    assert "1 read;" in _tool(token, "memory_search", queries=["note"])["content"][0]["text"]


def test_the_index_resource_is_exactly_the_tier_views_text(token, project, auditor_page):
    _tool(token, "memory_write", name="rule", description="Kind", body="Be <kind>.", load="inline")
    _tool(token, "memory_write", "/mcp?project=webdev", name="stack", description="Uses pnpm")
    answer = Client().post(
        "/mcp?project=webdev",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "resources/read",
                "params": {"uri": "memory://index"},
            }
        ),
        content_type="application/json",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        },
    )
    text = answer.json()["result"]["contents"][0]["text"]
    assert text == agent_view(project).text()
    page = auditor_page.get("/memories/_agent/?project=webdev").content.decode()
    assert escape(text).strip() in page


def test_a_client_that_says_nothing_of_what_it_accepts_is_answered_json(token):
    answer = Client().post(
        "/mcp",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert answer.json()["id"] == 7
    assert len(answer.json()["result"]["tools"]) == 5
