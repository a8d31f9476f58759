"""Supersession over MCP: memory_write's `supersedes` through the real /mcp view, the
superseded memory marked in memory_search and memory_read, and a refusal as a tool error."""

import pytest

from memadmin.accounts import roles, tokens
from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memories.models import ChangeSet, Memory
from memories.reads.agent_view import agent_view
from memories.rules.errors import InvalidField
from tests.conftest import make_user
from tests.mcp.in_process import call_tool as _tool


@pytest.fixture
def token(db, project):
    return tokens.create_token(make_user("agent", roles.OPERATOR), "write", "laptop")[1]


def test_memory_write_supersedes_in_the_sessions_project(token, project):
    path = "/mcp?project=webdev"
    _tool(token, "memory_write", path, name="port", description="The dev server port is 8000")
    written = _tool(
        token,
        "memory_write",
        path,
        name="port-now",
        description="The dev server port is 8080",
        supersedes="port",
    )
    assert not written.get("isError")
    text = written["content"][0]["text"]
    assert "Note: 'port' is superseded by 'port-now'" in text
    old = Memory.objects.get(name="port")
    assert old.project_name == "webdev" and old.superseded_by == "port-now"
    group = ChangeSet.objects.get()
    assert group.door == "mcp" and group.username == "agent"
    index = agent_view(project).text()
    assert "- port-now (priority" in index and "- port (priority" not in index
    found = _tool(token, "memory_search", path, queries=["dev server port"])["content"][0]["text"]
    assert "- port: priority 5" in found and "superseded by 'port-now'" in found
    read = _tool(token, "memory_read", path, name="port")["content"][0]["text"]
    assert "Superseded by 'port-now': no longer in force; read that one instead." in read


def test_a_refusal_is_a_tool_error_and_lands_nothing(token):
    _tool(token, "memory_write", name="port", description="The dev server port is 8000")
    refused = _tool(
        token, "memory_write", name="port-now", description="8080", supersedes="port-nowhere"
    )
    assert refused["isError"] is True
    assert refused["content"][0]["text"] == (
        "There is no memory named 'port-nowhere' in the global tier to supersede: a memory "
        "supersedes one of its own tier."
    )
    assert not Memory.objects.filter(name="port-now").exists()


def test_a_session_supersedes_only_in_the_tier_the_memory_lands_in(db, project):
    session = Session(project)
    TOOLS["memory_write"].call(session, {"name": "g", "description": "global", "tier": "global"})
    with pytest.raises(InvalidField, match="no memory named 'g' in project 'webdev'"):
        TOOLS["memory_write"].call(
            session, {"name": "p", "description": "project", "supersedes": "g"}
        )
