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
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
)
from mcp_types import Tool as ToolSchema

from memadmin.mcp import session, tools
from memories import engine
from memories.reads.agent_view import agent_view
from memories.rules.errors import DomainError

logger = logging.getLogger(__name__)

INDEX_URI = "memory://index"
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


async def list_resources(ctx, params: PaginatedRequestParams | None) -> ListResourcesResult:
    return ListResourcesResult(
        resources=[
            Resource(
                uri=INDEX_URI,
                name="index",
                title="The [Memory] section",
                description="What this session is given each turn: the inline rules within "
                "their budget, the index of descriptions with its ceilings, and what is "
                "listed nowhere.",
                mime_type="text/plain",
            )
        ]
    )


def _index_text() -> str:
    return agent_view(session.current().project).text()


async def read_resource(ctx, params: ReadResourceRequestParams) -> ReadResourceResult:
    if str(params.uri) != INDEX_URI:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"There is no resource '{str(params.uri)[:200]}'; this server has {INDEX_URI}.",
        )
    text = await sync_to_async(_index_text, thread_sensitive=True)()
    return ReadResourceResult(
        contents=[TextResourceContents(uri=INDEX_URI, text=text, mime_type="text/plain")]
    )


SERVER = Server(
    "memadmin",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
)
