"""The tiers the one asking may see and change: their reach, from their grants.

The site works out a caller's reach from their grants (memadmin.accounts.grants) and opens
it around the request (`within`); the domain's reads narrow to what it sees and its doors
refuse what it may not change. Outside any request (a command, the shell, a test) the reach
is the whole store.

A reach is held as tier keys (0 the global tier, a project's id), so a renamed project
stays granted.
"""

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from memories.rules.errors import OutsideGrants
from memories.rules.tiers import GLOBAL_TIER

# What a caller is told about a tier they may see but not change.
OUTSIDE_WRITE = "You may read {where} but not change it: ask an admin for a grant there."


@dataclass(frozen=True)
class Reach:
    """`seen`: the tier keys a caller may read, `changed`: those they may change; None in
    either is every tier."""

    seen: frozenset[int] | None = None
    changed: frozenset[int] | None = None

    @property
    def whole(self) -> bool:
        """Whether the caller sees the whole store (nothing is narrowed)."""
        return self.seen is None

    def sees(self, tier: int) -> bool:
        return self.seen is None or tier in self.seen

    def changes(self, tier: int) -> bool:
        return self.changed is None or tier in self.changed

    def seen_of(self, tiers: Iterable[int]) -> tuple[int, ...]:
        """The tiers of `tiers` this reach sees, in their order."""
        return tuple(tier for tier in tiers if self.sees(tier))

    def narrowed(self, tiers: Iterable[int] | None) -> "Reach":
        """This reach cut to `tiers` (None: not cut), as a token's tiers cut its owner's."""
        if tiers is None:
            return self
        tiers = frozenset(tiers)
        seen = in_sight(tiers)
        return Reach(
            seen=seen if self.seen is None else self.seen & seen,
            changed=tiers if self.changed is None else self.changed & tiers,
        )


def in_sight(granted: Iterable[int]) -> frozenset[int]:
    """The tiers a grant on `granted` lets its holder read: those, and the global tier with
    any project, since a session on the project reads the global tier too (its band, its
    inline budget). Read only: changing the global tier takes a grant on it."""
    granted = frozenset(granted)
    if any(tier != GLOBAL_TIER for tier in granted):
        return granted | {GLOBAL_TIER}
    return granted


EVERYWHERE = Reach()
NOWHERE = Reach(frozenset(), frozenset())

_reach: contextvars.ContextVar[Reach] = contextvars.ContextVar("memadmin_reach", default=EVERYWHERE)


def current() -> Reach:
    return _reach.get()


@contextlib.contextmanager
def within(reach: Reach) -> Iterator[Reach]:
    """Narrow every read and door called inside to `reach`."""
    token = _reach.set(reach)
    try:
        yield reach
    finally:
        _reach.reset(token)


def refuse_change(tier: int, where: str) -> None:
    """Refuse (OutsideGrants) a change to `tier`, named `where` ('the global tier', "project
    'webdev'"), that the caller's reach does not cover."""
    if not current().changes(tier):
        raise OutsideGrants(OUTSIDE_WRITE.format(where=where))


def changes_store() -> bool:
    """Whether the caller may make a change that spans the store (add a project): their
    grants to change are on the whole store, not on named tiers."""
    return current().changed is None


def refuse_store_change(what: str) -> None:
    """Refuse a change that spans the store (`what`: 'add a project') to a caller whose
    grants are on named tiers."""
    if not changes_store():
        raise OutsideGrants(f"Only a grant on the whole store lets you {what}.")
