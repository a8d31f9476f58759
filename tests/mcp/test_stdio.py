"""`manage.py mcp` over stdio, driven by the official MCP client's stdio transport."""

import json
import subprocess
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.mcp.conftest import first_leaf
from tests.reliability.conftest import ROOT, manage, migrate, store_env

SETUP = """
from django.contrib.auth.models import Group, User
from memories.writes import doors, history
from projects import writes

writes.add("webdev")
with history.acting(door=history.COMMAND, label="setup"):
    doors.write("stdio-kindness", project=None, description="Be kind in reviews")
User.objects.create_user("alice").groups.add(Group.objects.get(name="operator"))
User.objects.create_user("bob").groups.add(Group.objects.get(name="auditor"))
User.objects.create_user("nobody")
"""

REVISIONS = """
import json
from memories.models import Revision
rows = Revision.objects.order_by("id").values_list("name", "door", "actor", "username")
print(json.dumps(list(rows)))
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("stdio")
    migrate(data_dir)
    manage(data_dir, "shell", "-v0", "-c", SETUP)
    return data_dir


def _session(store, body, *arguments: str):
    server = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", *arguments],
        cwd=str(ROOT),
        env=store_env(store),
    )

    async def run():
        async with Client(server) as client:
            return await body(client)

    try:
        return anyio.run(run)
    except BaseExceptionGroup as group:
        raise first_leaf(group) from None


def _revisions(store) -> list[list]:
    return json.loads(manage(store, "shell", "-v0", "-c", REVISIONS))


def test_a_project_session_over_stdio_records_the_user_through_the_mcp_door(store):
    async def body(client):
        tools = [tool.name for tool in (await client.list_tools()).tools]
        written = await client.call_tool(
            "memory_write", {"name": "stdio-stack", "description": "Uses pnpm", "priority": 2}
        )
        found = await client.call_tool("memory_search", {})
        index = await client.read_resource("memory://index")
        return tools, written.content[0].text, found.content[0].text, index.contents[0].text

    tools, written, found, index = _session(store, body, "--project", "webdev", "--user", "alice")
    assert tools == ["memory_write", "memory_edit", "memory_read", "memory_search", "memory_delete"]
    assert written.startswith("Saved memory 'stdio-stack' (priority 2). It is in your memory")
    assert found.startswith("2 memories, most important first.\n\n- stdio-stack: priority 2")
    assert "Project webdev:\n- stdio-stack (priority 2, 0d): Uses pnpm" in index
    assert ["stdio-stack", "mcp", "alice", "alice"] in _revisions(store)


def test_a_session_on_no_project_without_a_user_is_recorded_as_the_command(store):
    async def body(client):
        result = await client.call_tool(
            "memory_write", {"name": "stdio-rule", "description": "Kind"}
        )
        refused = await client.call_tool(
            "memory_write", {"name": "stdio-x", "description": "x", "tier": "project"}
        )
        return result.content[0].text, refused.is_error, refused.content[0].text

    written, failed, refusal = _session(store, body)
    assert written.startswith("Saved memory 'stdio-rule' (priority 5).")
    assert failed and refusal.startswith('tier "project" needs a session on a project')
    assert ["stdio-rule", "mcp", "manage.py mcp", ""] in _revisions(store)


def test_an_auditors_session_reads_and_may_not_write(store):
    async def body(client):
        refused = await client.call_tool("memory_write", {"name": "bobs", "description": "No"})
        found = await client.call_tool("memory_search", {"queries": ["kind"]})
        return refused.is_error, refused.content[0].text, found.content[0].text

    failed, refusal, found = _session(store, body, "--user", "bob")
    assert (failed, refusal) == (True, "The account 'bob' is an auditor and cannot write.")
    assert "- stdio-kindness: " in found


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (["--project", "nope"], "There is no project named 'nope'."),
        (["--project", "a/b"], "A project starts with a letter or digit"),
        (["--user", "carol"], "There is no account named 'carol'."),
        (["--user", "nobody"], "The account 'nobody' has no role, so it can do nothing."),
    ],
)
def test_the_command_refuses_before_serving(store, arguments, refusal):
    finished = subprocess.run(
        [sys.executable, "manage.py", "mcp", *arguments],
        cwd=ROOT,
        env=store_env(store),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 1
    assert finished.stdout == ""
    assert finished.stderr.startswith(f"CommandError: {refusal}")
