"""An MCP tool called in this process through Django's test client, as an agent's client
posts it: one JSON-RPC `tools/call` with a bearer token."""

import json

from django.test import Client


def call_tool(token: str, tool: str, path: str = "/mcp", **arguments) -> dict:
    answer = Client().post(
        path,
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        ),
        content_type="application/json",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        },
    )
    assert answer.status_code == 200, answer.content
    return answer.json()["result"]
