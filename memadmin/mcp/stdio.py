"""The MCP server over stdio, for an agent on the same machine (`manage.py mcp`).

Whoever can run manage.py holds the store already, so no token is asked for: `user` names the
account the writes are recorded as, and its role decides whether the session may write (an
auditor's may not); without one, the session may do what the commands may, recorded as
`manage.py mcp`.
"""

import anyio
from django.contrib.auth import get_user_model
from mcp.server.stdio import stdio_server

from memadmin.accounts import roles, tokens
from memadmin.mcp import session
from memadmin.mcp.server import STDIO_SERVER
from memories.reads.visibility import Receiver
from memories.rules import fields
from memories.rules.errors import InvalidField, NotPermitted
from memories.writes import history
from projects.models import Project

LABEL = "manage.py mcp"


def serve(project: str | None, username: str | None) -> None:
    """Serve until stdin closes. An unknown project or account, or an account with no role,
    is refused before the server starts."""
    tier = fields.tier(project, absent=None)
    # Without an account the session may do what the commands may, allowing a secret too.
    opened = session.Session(Project.objects.named(tier) if tier else None, admin=True)
    user = None
    if username is not None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise InvalidField("user", f"There is no account named '{username}'.")
        role = roles.role_of(user)
        refused = tokens.refusal(user, role, tokens.READ)
        if refused is not None:
            raise NotPermitted(refused)
        opened = session.Session(
            opened.project,
            tokens.refusal(user, role, tokens.WRITE),
            admin=role == roles.ADMIN,
            receiver=Receiver(user.pk, role),
        )
    acting = history.acting(door=history.MCP, user=user, label=None if user else LABEL)
    with session.opened(opened), acting:
        anyio.run(_serve)


async def _serve() -> None:
    async with stdio_server() as (read, write):
        await STDIO_SERVER.run(read, write, STDIO_SERVER.create_initialization_options())
