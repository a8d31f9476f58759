"""Who may see what: the one place that answers whether a receiver (a signed-in page, a
token's script, an MCP session) may see a change in a tier. Every stream of the change
feed (memadmin.live) asks here, so a narrower rule (grants per project) is written here
alone."""

from dataclasses import dataclass

from memories.rules.reach import EVERYWHERE, Reach


@dataclass(frozen=True)
class Receiver:
    """Whoever a stream is for: the user, the role they hold (None: none anywhere), the token
    they hold it through (None: a signed-in page, or a command) and what their grants (the
    token's tiers within them) let them see."""

    user_id: int | None
    role: str | None
    token_id: int | None = None
    reach: Reach = EVERYWHERE


def may_see(receiver: Receiver, tier: int) -> bool:
    """Whether the receiver may see what happens in the tier (0 the global tier, else a
    project's id): as their reads, within their grants."""
    return receiver.role is not None and receiver.reach.sees(tier)
