"""The MCP server over the tools and the agent's memory section, built with the official SDK.

One Server serves HTTP and stdio alike. Its handlers are coroutines of the SDK; the work is
Django's, which is synchronous, so each runs through `sync_to_async` (thread-sensitive: under
`/mcp` in the request's own thread and its database connection, over stdio in one thread).
"""

import logging

from asgiref.sync import sync_to_async
from django.db import OperationalError, connection
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    SubscriptionsListenResult,
    TextContent,
    TextResourceContents,
)
from mcp_types import Tool as ToolSchema

from memadmin.mcp import listen, session, tools
from memories import engine
from memories.reads.agent_view import agent_view
from memories.rules.errors import DomainError

logger = logging.getLogger(__name__)

INDEX_URI = listen.INDEX_URI
INSTRUCTIONS = (
    "Your durable memory. Read memory://index for your [Memory] section: the inline rules "
    "and the index, for this session's project and the global tier. memory_search reaches "
    "everything, memory_read a whole note, memory_write and memory_edit keep what should "
    "outlive the session."
)


BUSY = "The store is busy with another write; retry in a moment."
FAILED = "Something failed on the server; its log says what."


def _answer(tool: tools.Tool, arguments: dict | None) -> CallToolResult:
    """The tool's text, or a tool error carrying one sentence: a refusal's, a busy store's,
    or, for a failure of ours, the pointer to the log."""
    try:
        text, failed = tool.call(session.current(), arguments), False
    except DomainError as refusal:
        text, failed = refusal.message, True
    except Exception as problem:
        busy = isinstance(problem, OperationalError) and engine.of(connection).config.is_busy(
            problem
        )
        if not busy:
            logger.exception("unexpected failure in %s", tool.name)
        text, failed = BUSY if busy else FAILED, True
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=failed)


async def list_tools(ctx, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(
        tools=[
            ToolSchema(
                name=tool.name, description=tool.description, input_schema=tool.input_schema()
            )
            for tool in tools.TOOLS.values()
        ]
    )


async def call_tool(ctx, params: CallToolRequestParams) -> CallToolResult:
    tool = tools.TOOLS.get(params.name)
    if tool is None:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"There is no tool named '{params.name[:100]}'; the tools are "
            f"{', '.join(tools.TOOLS)}.",
        )
    return await sync_to_async(_answer, thread_sensitive=True)(tool, params.arguments)


def _resources() -> dict:
    return listen.resources(session.current())


def _described(uri: str, project) -> Resource:
    if uri == INDEX_URI:
        return Resource(
            uri=INDEX_URI,
            name="index",
            title="The [Memory] section",
            description="What this session is given each turn: the inline rules within "
            "their budget, the index of descriptions with its ceilings, and what is "
            "listed nowhere.",
            mime_type="text/plain",
        )
    where = f"project {project.name}" if project else "no project"
    return Resource(
        uri=uri,
        name=uri.removeprefix(listen.TIER_URI),
        title=f"The [Memory] section of a session on {where}",
        description="As memory://index, for that session.",
        mime_type="text/plain",
    )


async def list_resources(ctx, params: PaginatedRequestParams | None) -> ListResourcesResult:
    found = await sync_to_async(_resources, thread_sensitive=True)()
    return ListResourcesResult(resources=[_described(uri, p) for uri, p in found.items()])


def _index_text(uri: str) -> str | None:
    found = _resources()
    if uri not in found:
        return None
    return agent_view(found[uri]).text()


async def read_resource(ctx, params: ReadResourceRequestParams) -> ReadResourceResult:
    uri = str(params.uri)
    text = await sync_to_async(_index_text, thread_sensitive=True)(uri)
    if text is None:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"There is no resource '{uri[:200]}'; resources/list names them.",
        )
    return ReadResourceResult(
        contents=[TextResourceContents(uri=uri, text=text, mime_type="text/plain")]
    )


async def subscriptions_listen(ctx, params) -> SubscriptionsListenResult:
    """Reached over stdio alone: /mcp answers a listen request with its own stream."""
    raise MCPError(
        code=INVALID_REQUEST,
        message="Subscriptions are served over HTTP (/mcp), where the store's changes reach "
        "every session; over stdio, read memory://index again.",
    )


def _server(*, subscriptions: bool) -> Server:
    return Server(
        "memadmin",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        **({"on_subscriptions_listen": subscriptions_listen} if subscriptions else {}),
    )


# /mcp advertises subscriptions (memadmin.mcp.listen serves them); stdio does not.
SERVER = _server(subscriptions=True)
STDIO_SERVER = _server(subscriptions=False)
