"""`subscriptions/listen` on /mcp (MCP 2026-07-28): a session's subscription to the index
resources, answered as an event stream held by the live hub (memadmin.live), so a listening
agent holds no request thread.

The resources are `memory://index` (the session's [Memory] section) and one
`memory://tier/NAME` per tier the token may read (`memory://tier/global`, the section of a
session on no project). A subscribed resource is announced (`notifications/resources/
updated`) when a committed change touches its tiers and its text is no longer what the
stream last saw: a write that leaves the section as it was, or an agent's read, says
nothing. The stream's first frame acknowledges what it honours: the subscriptions to these
resources (unknown URIs and other kinds are left out, as the protocol asks).
"""

import hashlib
import json

from django.http import HttpResponse

from memadmin.live.feed import FEED
from memadmin.live.responses import streaming
from memadmin.live.streams import Stream, sse
from memadmin.mcp.session import Session
from memories.models import GLOBAL_TIER
from memories.reads import changes
from memories.reads.agent_view import agent_view
from memories.reads.visibility import may_see
from projects.models import Project

METHOD = "subscriptions/listen"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
INDEX_URI = "memory://index"
TIER_URI = "memory://tier/"
GLOBAL_URI = TIER_URI + "global"


def tier_uri(project: Project | None) -> str:
    return GLOBAL_URI if project is None else TIER_URI + project.name


def resources(session: Session) -> dict[str, Project | None]:
    """The index resources the session may read, each with the project whose section it is."""
    receiver = session.receiver
    found: dict[str, Project | None] = {INDEX_URI: session.project}
    if may_see(receiver, GLOBAL_TIER):
        found[GLOBAL_URI] = None
    for project in Project.objects.order_by("name"):
        if may_see(receiver, project.id):
            found[tier_uri(project)] = project
    return found


def _digest(project: Project | None) -> str:
    return hashlib.sha256(agent_view(project).text().encode()).hexdigest()


def _message(method: str, params: dict) -> bytes:
    return sse(
        event="message", data=json.dumps({"jsonrpc": "2.0", "method": method, "params": params})
    )


class _Watched:
    """What one listen stream watches: each URI's project, the tiers that make its text, and
    the text's digest as last announced."""

    def __init__(self, watched: dict[str, Project | None], meta: dict):
        self.projects = watched
        self.tiers = {
            uri: {GLOBAL_TIER} | ({project.id} if project else set())
            for uri, project in watched.items()
        }
        self.digests = {uri: _digest(project) for uri, project in watched.items()}
        self.meta = meta

    def admits(self, event: changes.Event) -> bool:
        return event.of_project or any(
            tier in tiers for tiers in self.tiers.values() for tier in event.tiers
        )

    def render(self, events: list[changes.Event]) -> bytes:
        """The notifications of the resources whose text these changes changed (run by the
        feed's thread, which reads the sections)."""
        touched = {tier for event in events for tier in event.tiers}
        anything = any(event.of_project for event in events)
        frames = []
        for uri, project in self.projects.items():
            if not anything and not touched & self.tiers[uri]:
                continue
            if project is not None:
                project = Project.objects.filter(id=project.id).first()
                if project is None:
                    continue  # removed: its section is gone
            digest = _digest(project)
            if digest != self.digests[uri]:
                self.digests[uri] = digest
                params = {"uri": uri, "_meta": self.meta}
                frames.append(_message("notifications/resources/updated", params))
        return b"".join(frames)


def answer(message: dict, session: Session) -> HttpResponse | None:
    """The listen stream a `subscriptions/listen` request opens; None when the message is
    not one (the SDK answers it)."""
    if not isinstance(message, dict) or message.get("method") != METHOD or "id" not in message:
        return None
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    wanted = (params.get("notifications") or {}).get("resourceSubscriptions") or []
    known = resources(session)
    honored = [uri for uri in wanted if isinstance(uri, str) and uri in known]
    meta = {SUBSCRIPTION_ID: message["id"]}
    watched = _Watched({uri: known[uri] for uri in honored}, meta)
    stream = Stream(session.receiver, watched.admits, watched.render)
    ack = {"notifications": {"resourceSubscriptions": honored} if honored else {}, "_meta": meta}
    stream.put(_message("notifications/subscriptions/acknowledged", ack))
    FEED.open(stream, None)
    return streaming(stream)
