"""/mcp under gunicorn, driven by the official MCP client over Streamable HTTP: the handshake,
the five tools and their refusals, the index resource, sessions on a project and on none,
read and write tokens, and what is refused before the protocol runs."""

import json

import pytest
from mcp.shared.exceptions import MCPError

from memadmin.accounts import tokens
from tests.mcp.conftest import INLINE_BUDGET

NEW = {"name": "bad-args", "description": "d"}  # a memory no test writes
TOOLS = ["memory_write", "memory_edit", "memory_read", "memory_search", "memory_delete"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_handshake_lists_the_five_tools_and_the_index(live, mode):
    async def body(client):
        listed = await client.list_tools()
        resources = await client.list_resources()
        return client.server_info, client.instructions, listed.tools, resources.resources

    info, instructions, tools, resources = live.session(body, mode=mode)
    assert info.name == "memadmin"
    assert "memory://index" in instructions
    assert [tool.name for tool in tools] == TOOLS
    schemas = {tool.name: tool.input_schema for tool in tools}
    assert schemas["memory_write"]["required"] == ["name"]
    assert set(schemas["memory_write"]["properties"]) == {
        "name",
        "description",
        "body",
        "tags",
        "priority",
        "load",
        "references",
        "source",
        "expires",
        "verified",
        "tier",
        "allow_secret",
        "supersedes",
    }
    assert schemas["memory_write"]["properties"]["tier"]["enum"] == ["global", "project"]
    assert schemas["memory_edit"]["required"] == ["name", "old_string", "new_string"]
    assert {"queries", "tier", "referencing", "unverified", "expired"} <= set(
        schemas["memory_search"]["properties"]
    )
    assert schemas["memory_read"]["properties"]["offset"]["type"] == "integer"
    assert [(str(r.uri), r.mime_type) for r in resources] == [
        ("memory://index", "text/plain"),
        ("memory://tier/global", "text/plain"),
        ("memory://tier/infra", "text/plain"),
        ("memory://tier/webdev", "text/plain"),
    ]


def test_a_project_session_writes_searches_reads_edits_and_deletes(live):
    async def body(client):
        answers = []
        for tool, arguments in [
            (
                "memory_write",
                {
                    "name": "walk-tz",
                    "description": "Walker is in UTC+8",
                    "body": "Walker lives in Taipei.\nWalker prefers mornings.",
                    "tags": ["people"],
                    "priority": 3,
                    "source": "Walker, in chat",
                    "references": ["walk-office", "https://example.org/walker"],
                },
            ),
            ("memory_write", {"name": "walk-office", "description": "Walker's office"}),
            (
                "memory_write",
                {"name": "walk-desk", "description": "Desk", "references": ["walk-tz"]},
            ),
            ("memory_search", {"queries": ["walker", "taipei"]}),
            ("memory_read", {"name": "walk-tz"}),
            ("memory_edit", {"name": "walk-tz", "old_string": "Taipei", "new_string": "Tainan"}),
            ("memory_search", {"queries": ["tainan"]}),
            ("memory_delete", {"name": "walk-tz"}),
            ("memory_read", {"name": "walk-tz"}),
        ]:
            result = await client.call_tool(tool, arguments)
            answers.append((result.is_error, result.content[0].text))
        return answers

    answers = live.session(body, project="webdev")
    assert [failed for failed, _ in answers] == [False] * 8 + [True]
    written, _, _, found, read, edited, refound, deleted, gone = (text for _, text in answers)
    assert written == (
        "Saved memory 'walk-tz' (priority 3). It is in your memory store from the next turn "
        "on, and `memory_search` will find it whatever the index has room to list."
    )
    # In the default (hybrid) mode: the words' two hits first, then any guess by meaning.
    assert found.splitlines()[0].endswith("matching ‘walker’ or ‘taipei’, best first.")
    entries = found.split("\n\n")[1:]
    assert entries[0].startswith("- walk-tz: priority 3, recorded today, 0 reads; matched by word")
    assert any(entry.startswith("- walk-office:") for entry in entries)
    assert (
        "  Walker is in UTC+8\n    Walker lives in Taipei.\n    Walker prefers mornings." in found
    )
    assert read.splitlines()[:2] == [
        "Memory 'walk-tz', priority 3, load index: Walker is in UTC+8",
        "Recorded today, not verified since. This is what you recorded then, not live state.",
    ]
    assert "Source: Walker, in chat" in read
    assert "References: walk-office (Walker's office); https://example.org/walker" in read
    assert "Referenced by: 'walk-desk' (webdev)" in read
    assert read.endswith("\n\nWalker lives in Taipei.\nWalker prefers mornings.")
    assert edited == (
        "Edited memory 'walk-tz' (1 replacement). The lines around the change:\n\n"
        "Walker lives in Tainan.\nWalker prefers mornings."
    )
    assert "1 read;" in refound  # the read counted, the searches did not
    assert deleted == (
        "Deleted memory 'walk-tz' from project 'webdev'. Still referenced by 'walk-desk' "
        "(webdev); their references are left in place, as markers of a fact to revisit."
    )
    assert gone == "There is no memory named 'walk-tz' in project 'webdev' or the global tier."


def test_the_tiers_of_a_project_session_and_of_a_session_on_none(live):
    assert live.call("memory_write", {"name": "tiers-rule", "description": "Answer in kind"}) == (
        False,
        "Saved memory 'tiers-rule' (priority 5). It is in your memory store from the next "
        "turn on, and `memory_search` will find it whatever the index has room to list.",
    )
    failed, text = live.call(
        "memory_write",
        {"name": "tiers-house", "description": "House style", "tier": "global"},
        project="webdev",
    )
    assert (failed, text.split(". It is")[0]) == (
        False,
        "Saved memory 'tiers-house' in the global tier (priority 5)",
    )
    live.call("memory_write", {"name": "tiers-pnpm", "description": "Uses pnpm"}, project="webdev")
    # A global memory re-filed in the session's project: the result says where it went.
    failed, text = live.call(
        "memory_write", {"name": "tiers-house", "tier": "project"}, project="webdev"
    )
    assert text.startswith(
        "Saved memory 'tiers-house' in project 'webdev' (priority 5). "
        "It moved there from the global tier."
    )
    assert live.call("memory_write", {"name": "x", "tier": "project", "description": "d"}) == (
        True,
        'tier "project" needs a session on a project; this session is on no project, so its '
        "memories are global.",
    )

    _, in_project = live.call("memory_search", {"queries": ["tiers"]}, project="webdev")
    _, on_none = live.call("memory_search", {"queries": ["tiers"]})
    _, global_only = live.call(
        "memory_search", {"queries": ["tiers"], "tier": "global"}, project="webdev"
    )
    assert "- tiers-rule (global): " in in_project and "- tiers-pnpm: " in in_project
    assert "- tiers-rule: " in on_none and "tiers-pnpm" not in on_none
    assert "tiers-pnpm" not in global_only and "in the global tier" in global_only
    # Another project's memory is out of this session's sight, by name too.
    assert live.call("memory_read", {"name": "tiers-pnpm"}, project="infra") == (
        True,
        "There is no memory named 'tiers-pnpm' in project 'infra' or the global tier.",
    )


def test_the_index_resource_is_the_tier_views_text(live):
    live.call(
        "memory_write",
        {"name": "index-rule", "description": "Terse", "body": "Be terse.", "load": "inline"},
    )
    live.call("memory_write", {"name": "index-stack", "description": "Uses Vite"}, project="infra")

    async def index(client):
        result = await client.read_resource("memory://index")
        return result.contents[0].text

    text = live.session(index, project="infra")
    assert text.startswith("[Memory]\nMemories of the project infra and global\n")
    assert "## index-rule (global)\nBe terse.\n" in text
    assert "Project infra:\n- index-stack (priority 5, 0d): Uses Vite" in text
    assert "index-stack" not in live.session(index)

    async def unknown(client):
        await client.read_resource("memory://elsewhere")

    with pytest.raises(MCPError, match="There is no resource 'memory://elsewhere'"):
        live.session(unknown)


def test_a_long_body_is_read_in_pages_with_the_continuation_offset(live):
    body = "".join(f"{i:05d}\n" for i in range(7000))  # 42,000 characters
    live.call("memory_write", {"name": "long-notes", "description": "Notes", "body": body})
    _, first = live.call("memory_read", {"name": "long-notes"})
    _, second = live.call("memory_read", {"name": "long-notes", "offset": 16000})
    _, last = live.call("memory_read", {"name": "long-notes", "offset": 32000})
    assert first.startswith("Memory 'long-notes', priority 5, load index: Notes\n")
    assert body[:16000] in first and body[16000:16010] not in first
    assert first.endswith(
        "[Characters 0 to 16000 of 42000. To read on, call memory_read with name "
        "'long-notes' and offset 16000.]"
    )
    assert second.startswith("Memory 'long-notes', priority 5, load index: Notes\n")
    assert body[16000:32000] in second
    assert second.endswith("and offset 32000.]")
    assert body[32000:] in last
    assert last.endswith("[Characters 32000 to 42000 of 42000: the end of the body.]")
    for offset in (-1, "ten", True):
        assert live.call("memory_read", {"name": "long-notes", "offset": offset}) == (
            True,
            "offset is a character position, 0 or more.",
        )


def test_an_offset_past_the_body_is_a_tool_error_and_counts_no_read(live):
    live.call("memory_write", {"name": "short-notes", "description": "Notes", "body": "12345"})
    past = (
        "offset is past the end of the body of 'short-notes', which has 5 characters: give 0 to 5."
    )
    for offset in (6, 50_000, 2**70, 1e99):
        assert live.call("memory_read", {"name": "short-notes", "offset": offset}) == (True, past)
    _, at_the_end = live.call("memory_read", {"name": "short-notes", "offset": 5})
    assert at_the_end.endswith("(Offset 5 is the end of the body, which has 5 characters.)")
    _, found = live.call("memory_search", {"queries": ["short-notes"]})
    assert "- short-notes: priority 5, recorded today, 1 read;" in found


@pytest.mark.parametrize(
    ("token", "refusal"),
    [
        ("reader", "This token is read-only; writing needs a write token."),
        ("auditor", "This token is read-only; writing needs a write token."),
        ("demoted", "The account 'demoted' is an auditor and cannot write."),
    ],
)
def test_a_token_that_may_not_write_searches_and_reads_only(live, token, refusal):
    live.call("memory_write", {"name": "scope-note", "description": "Scoped", "body": "kept"})
    for tool, arguments in [
        ("memory_write", {"name": "scope-note", "body": "overwritten"}),
        ("memory_write", {"name": "scope-new", "description": "New"}),
        ("memory_edit", {"name": "scope-note", "old_string": "kept", "new_string": "gone"}),
        ("memory_delete", {"name": "scope-note"}),
    ]:
        assert live.call(tool, arguments, token=token) == (True, refusal)
    failed, read = live.call("memory_read", {"name": "scope-note"}, token=token)
    assert not failed and read.endswith("\n\nkept")
    failed, found = live.call("memory_search", {"queries": ["scope"]}, token=token)
    assert not failed and found.splitlines()[0].endswith("matching ‘scope’, best first.")
    assert found.split("\n\n")[1].startswith("- scope-note")


@pytest.mark.parametrize(
    ("token", "project", "refusal"),
    [
        (None, None, tokens.TOKEN_REQUIRED),
        ("revoked", None, tokens.REVOKED),
        ("roleless", None, "The account 'former' has no role, so its tokens can do nothing."),
        ("writer", "nope", "There is no project named 'nope'."),
        ("writer", "../etc", "A project starts with a letter or digit"),
    ],
)
def test_a_session_is_refused_before_it_starts(live, token, project, refusal):
    async def body(client):
        await client.list_tools()

    with pytest.raises(MCPError) as raised:
        live.session(body, token=token, project=project)
    assert str(raised.value).startswith(refusal)


@pytest.mark.parametrize(
    ("headers", "path", "status", "message"),
    [
        ({"Authorization": ""}, "/mcp", 401, tokens.TOKEN_REQUIRED),
        ({"Authorization": "Bearer mem_nothing"}, "/mcp", 401, tokens.TOKEN_REQUIRED),
        ({}, "/mcp?project=nope", 404, "There is no project named 'nope'."),
    ],
)
def test_refusals_before_the_protocol_are_json_rpc_errors(live, headers, path, status, message):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    answer = live.request("POST", path, initialize, headers={**_accepting(), **headers})
    assert answer.status == status
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message},
    }
    if status == 401:
        assert answer.headers["WWW-Authenticate"] == 'Bearer realm="memadmin"'


def _accepting() -> dict:
    return {"Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
        b'{"id": 1, "method": "ping"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_read", '
        b'"arguments": [1]}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_read", '
        b'"arguments": {"name": "\\ud800"}}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}',
        b'"\\u0000"',
    ],
)
def test_a_malformed_message_is_a_protocol_error_of_one_line(live, body):
    answer = live.request("POST", "/mcp", body, headers=_accepting())
    assert answer.status in (200, 400)
    error = answer.json()["error"]
    assert error["code"] < 0
    assert "\n" not in error["message"] and "Traceback" not in error["message"]
    assert live.call("memory_search", {})[0] is False  # the server goes on


def test_an_event_stream_is_not_opened_and_an_oversized_body_is_refused(live):
    answer = live.request("GET", "/mcp", headers={"Accept": "text/event-stream"})
    assert (answer.status, answer.headers["Allow"]) == (405, "POST")
    assert "send each JSON-RPC message as a POST" in answer.json()["error"]["message"]
    too_big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "a" * 3_000_000})
    answer = live.request("POST", "/mcp", too_big.encode(), headers=_accepting())
    assert answer.status == 413
    assert (
        answer.json()["error"]["message"] == "The request body is larger than this server accepts."
    )


@pytest.mark.parametrize(
    ("tool", "arguments", "refusal"),
    [
        ("memory_write", {"description": "no name"}, "memory_write needs name."),
        ("memory_write", {"name": "bad-args", "colour": "red"}, "memory_write has no argument"),
        ("memory_write", {**NEW, "priority": "high"}, "The priority must be a whole number."),
        ("memory_write", {**NEW, "priority": 101}, "The priority must be between 0"),
        ("memory_write", {**NEW, "load": ["inline"]}, "The load must be inline, index or search."),
        ("memory_write", {**NEW, "tags": "people"}, "The tags must be a list of text lines."),
        ("memory_write", {**NEW, "verified": "yes"}, "verified is true or false."),
        ("memory_write", {**NEW, "tier": "both"}, 'tier is "global" or "project".'),
        ("memory_write", {**NEW, "expires": "soon"}, "'soon' is not an RFC 3339 timestamp"),
        ("memory_write", {"name": "bad-args"}, "A new memory needs a description."),
        (
            "memory_write",
            {"name": "n" * 200, "description": "d"},
            "A name is at most 128 characters.",
        ),
        (
            "memory_write",
            {"name": "../../etc/passwd", "description": "d"},
            "A name starts with a letter or digit",
        ),
        (
            "memory_write",
            {**NEW, "body": "b" * 1_000_001},
            "A body is at most 1,000,000 characters.",
        ),
        (
            "memory_write",
            {**NEW, "references": [f"r{i}" for i in range(21)]},
            "A memory has at most 20 references, not 21.",
        ),
        ("memory_edit", {"name": "bad-args", "old_string": "a"}, "memory_edit needs new_string."),
        ("memory_search", {"queries": "x" * 501}, "queries: A search is at most 500 characters."),
        (
            "memory_search",
            {"queries": [str(i) for i in range(21)]},
            "queries: At most 20 synonyms in one search.",
        ),
        ("memory_search", {"queries": [1, 2]}, "queries is a list of texts, read as synonyms."),
        ("memory_search", {"unverified": "lately"}, "unverified: 'lately' is not a period"),
        ("memory_search", {"expired": "maybe"}, "expired is true or false."),
        ("memory_search", {"limit": 0.5}, "limit: Enter a whole number."),
        ("memory_delete", {"name": ""}, "A name is required."),
    ],
)
def test_bad_arguments_are_a_tool_error_of_one_sentence(live, tool, arguments, refusal):
    failed, text = live.call(tool, arguments)
    assert failed
    assert text.startswith(refusal)
    assert "\n" not in text and "Traceback" not in text
    assert live.call("memory_read", {"name": "bad-args"})[1].startswith(
        "There is no memory named 'bad-args'"
    )


def test_an_unknown_tool_is_a_protocol_error_and_the_session_goes_on(live):
    async def body(client):
        with pytest.raises(MCPError) as raised:
            await client.call_tool("memory_forget", {"name": "x"})
        after = await client.call_tool("memory_search", {})
        return str(raised.value), after.is_error

    message, failed = live.session(body)
    assert message == (
        "There is no tool named 'memory_forget'; the tools are memory_write, memory_edit, "
        "memory_read, memory_search, memory_delete."
    )
    assert not failed


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "NEAR(a b) OR body:*",
        "') OR 1=1 --",
        "%_%",
        "a\x00b",
        "東京 deploy-host /etc/nginx/nginx.conf",
        "\u202eevil",
        "*" * 500,
    ],
)
def test_hostile_search_text_is_searched_for_never_obeyed(live, query):
    live.call("memory_write", {"name": "hostile-anchor", "description": "An anchor"})
    failed, text = live.call("memory_search", {"queries": [query, "anchor"]})
    assert not failed
    assert "matching" in text and "- hostile-anchor: " in text
    failed, text = live.call("memory_search", {"queries": [query], "referencing": query[:100]})
    if failed:  # a NUL is refused in a filter, in the filter form's words
        assert text == "referencing: Null characters are not allowed."
    else:
        assert text.startswith("0 memories")


def test_a_refused_write_lands_nothing(live):
    inline = {"load": "inline", "description": "A standing rule"}
    assert not live.call("memory_write", {"name": "budget-a", **inline, "body": "a" * 3000})[0]
    failed, text = live.call("memory_write", {"name": "budget-b", **inline, "body": "b" * 2000})
    assert failed
    assert text.startswith("inline memories would total 4.9 KiB against the 4.0 KiB inline budget")
    # The largest inline memories as they would stand (others' tests may add small ones).
    assert "; shorten 'budget-a' (2.9 KiB)" in text and "'budget-b' (2.0 KiB)" in text
    assert "set `load: index` on one that is not a standing rule" in text
    failed, text = live.call(
        "memory_edit",
        {"name": "budget-a", "old_string": "a", "new_string": "aa", "replace_all": True},
    )
    assert failed and text.startswith("inline memories would total 5.9 KiB")
    assert live.call("memory_read", {"name": "budget-b"})[0]
    assert live.call("memory_read", {"name": "budget-a"})[1].endswith("a" * 3000)
    assert INLINE_BUDGET == 4096
    # A clash of names across tiers: a global name is never also a project's.
    live.call("memory_write", {"name": "clash-note", "description": "Infra's"}, project="infra")
    assert live.call("memory_write", {"name": "clash-note", "description": "Mine"}) == (
        True,
        "'clash-note' is already a memory of infra, and a global name is never also a "
        "project's: choose another name for the global tier.",
    )


def test_the_audit_log_shows_the_mcp_door_and_the_tokens_user(live):
    live.call("memory_write", {"name": "audited", "description": "Audited"}, project="webdev")
    live.call("memory_edit", {"name": "audited", "old_string": "x", "new_string": "y"})
    answer = live.request(
        "GET",
        "/v1/audit?door=mcp&memory=audited",
        headers={"Authorization": f"Bearer {live.tokens['auditor']}"},
    )
    revisions = answer.json()["revisions"]
    assert [(r["action"], r["door"], r["user"]) for r in revisions] == [("create", "mcp", "agent")]
    assert revisions[0]["actor"].startswith("agent (token “mcp tests” mem_")
