"""`--user NAME` on the store's commands: the command reads and writes as that account,
within its grants (memadmin.accounts.grants), and its writes are recorded as theirs.

Without it a command acts for whoever can run manage.py, who holds the store already: the
whole of it, recorded under the command's own label.
"""

import contextlib
from collections.abc import Iterator

from django.core.management.base import CommandError

from memadmin.accounts import roles, tokens
from memories.rules import reach
from memories.rules.errors import DomainError
from memories.writes import history


def add_option(parser) -> None:
    parser.add_argument(
        "--user",
        metavar="NAME",
        help="act as this account: only what its grants reach is read or changed",
    )


@contextlib.contextmanager
def acting(username: str | None, label: str) -> Iterator[None]:
    """Act as `username` (None: as the command, over the whole store)."""
    if username is None:
        with history.acting(door=history.COMMAND, label=label):
            yield
        return
    try:
        user = tokens.account_named(username)
    except DomainError as refusal:
        raise CommandError(refusal.message) from None
    with (
        history.acting(door=history.COMMAND, user=user),
        reach.within(roles.holdings(user).reach()),
    ):
        yield
