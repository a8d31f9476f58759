"""The MCP server over stdio, for an agent on the same machine (`manage.py mcp`).

Whoever can run manage.py holds the store already, so no token is asked for: `user` names the
account the writes are recorded as, and its role decides whether the session may write (an
auditor's may not); without one, the session may do what the commands may, recorded as
`manage.py mcp`.
"""

import anyio
from mcp.server.stdio import stdio_server

from memadmin.accounts import roles, tokens
from memadmin.mcp import session
from memadmin.mcp.server import STDIO_SERVER
from memories.reads.visibility import Receiver
from memories.rules import fields, reach, tiers
from memories.rules.errors import NotPermitted
from memories.rules.tiers import GLOBAL_TIER
from memories.writes import history
from projects.models import Project

LABEL = "manage.py mcp"


def serve(project: str | None, username: str | None) -> None:
    """Serve until stdin closes. An unknown project or account, or an account with no role,
    is refused before the server starts."""
    tier = fields.tier(project, absent=None)
    # Without an account the session may do what the commands may, allowing a secret too.
    opened = session.Session(Project.objects.named(tier) if tier else None, admin=True)
    user, held = None, reach.EVERYWHERE
    if username is not None:
        user = tokens.account_named(username)
        holdings = roles.holdings(user)
        held = holdings.reach()
        tier_key = opened.project.id if opened.project else GLOBAL_TIER
        if not held.sees(tier_key):
            raise NotPermitted(
                f"'{username}' holds no grant on {tiers.phrase(tier)}, so no session there."
            )
        opened = session.Session(
            opened.project,
            tokens.refusal(user, holdings.role, tokens.WRITE),
            admin=holdings.role == roles.ADMIN,
            receiver=Receiver(user.pk, holdings.role, reach=held),
        )
    acting = history.acting(door=history.MCP, user=user, label=None if user else LABEL)
    with session.opened(opened), acting, reach.within(held):
        anyio.run(_serve)


async def _serve() -> None:
    async with stdio_server() as (read, write):
        await STDIO_SERVER.run(read, write, STDIO_SERVER.create_initialization_options())
