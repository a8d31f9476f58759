"""A store of its own served by gunicorn on a free port of 127.0.0.1, spoken to with the
official MCP client over Streamable HTTP, with tokens of every kind."""

import json
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.reliability.conftest import Served, manage

INLINE_BUDGET = 4096  # small, so that a refusal of the budget is a few kilobytes away

SETUP = """
import json
from django.contrib.auth.models import Group, User
from memadmin.accounts import tokens
from projects import writes

writes.add("webdev")
writes.add("infra")


def account(name, role):
    user = User.objects.create_user(name)
    user.groups.add(Group.objects.get(name=role))
    return user


agent = account("agent", "operator")
made = {
    "writer": tokens.create_token(agent, "write", "mcp tests")[1],
    "reader": tokens.create_token(agent, "read")[1],
    "auditor": tokens.create_token(account("watcher", "auditor"), "read")[1],
}
revoked, made["revoked"] = tokens.create_token(agent, "write")
tokens.revoke(revoked)
former = account("former", "operator")
made["roleless"] = tokens.create_token(former, "write")[1]
former.groups.clear()
demoted = account("demoted", "operator")
made["demoted"] = tokens.create_token(demoted, "write")[1]
demoted.groups.set([Group.objects.get(name="auditor")])
print(json.dumps(made))
"""


def first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The error the client's task groups wrapped (an MCPError carrying the server's sentence)."""
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


class Live(Served):
    """The served store, its tokens by kind, and MCP sessions on it."""

    def __init__(self, data_dir):
        super().__init__(data_dir, workers=2, env={"MEMADMIN_INLINE_MAX_BYTES": str(INLINE_BUDGET)})
        self.tokens = json.loads(manage(data_dir, "shell", "-v0", "-c", SETUP).strip())

    def url(self, project: str | None = None) -> str:
        query = "" if project is None else "?" + urlencode({"project": project})
        return f"http://127.0.0.1:{self.port}/mcp{query}"

    def session(
        self,
        body: Callable[[Client], Awaitable],
        *,
        token: str | None = "writer",
        project: str | None = None,
        mode: str = "auto",
    ):
        """Run `body` on an MCP client connected with this kind of token (None: no token)."""
        headers = {} if token is None else {"Authorization": f"Bearer {self.tokens[token]}"}

        async def run():
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
                transport = streamable_http_client(self.url(project), http_client=http)
                async with Client(transport, mode=mode) as client:
                    return await body(client)

        try:
            return anyio.run(run)
        except BaseExceptionGroup as group:
            raise first_leaf(group) from None

    def call(self, tool: str, arguments: dict, **options):
        """One tool call in a session of its own: (is_error, text)."""

        async def body(client):
            result = await client.call_tool(tool, arguments)
            return result.is_error, result.content[0].text

        return self.session(body, **options)


@pytest.fixture(scope="session")
def live(tmp_path_factory):
    """One served store a worker: worksteal hands a worker this module's tests in several
    runs, between which a module's fixture would be torn down and started again (a migrated
    store and gunicorn each time). Only tests/mcp/test_http.py uses it."""
    server = Live(tmp_path_factory.mktemp("mcp"))
    yield server
    server.stop()
