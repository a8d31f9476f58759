"""An MCP session: the project it is on and whether it may write, known before any tool runs.

`/mcp` opens one per request (the protocol is served stateless: every request carries the
token and the URL's `project=`), `manage.py mcp` one for the process. The tools read it with
`current()`: the SDK runs them on its own tasks, which carry the context they were started
in, so a context variable reaches them where an argument could not.
"""

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass

from memadmin.accounts import roles
from memories.reads.visibility import Receiver
from projects.models import Project

# Whoever runs `manage.py mcp` without --user holds the store.
WHOLE_STORE = Receiver(None, roles.ADMIN)


@dataclass(frozen=True)
class Session:
    project: Project | None  # None: a session on no project, which sees the global tier alone
    write_refusal: str | None = None  # why the session may not write; None: it may
    admin: bool = False  # an admin's session, which may allow a write holding a secret
    receiver: Receiver = WHOLE_STORE  # whose the session is, as the change feed sees them

    @property
    def project_name(self) -> str | None:
        return self.project.name if self.project else None


_session: contextvars.ContextVar[Session] = contextvars.ContextVar("memadmin_mcp_session")


def current() -> Session:
    return _session.get()


@contextlib.contextmanager
def opened(session: Session) -> Iterator[Session]:
    reset = _session.set(session)
    try:
        yield session
    finally:
        _session.reset(reset)
