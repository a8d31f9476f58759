"""/v1/memories: list and search, get, put, edit, the agent's read, delete."""

from urllib.parse import urlencode

from django.http import HttpRequest
from django.urls import reverse

from memadmin.accounts.roles import ADMIN
from memadmin.api.auth import READ, WRITE, authorize
from memadmin.api.responses import json_body, ok, query_tier, valid
from memadmin.web.query import query_string
from memories.models import Memory
from memories.reads import backlinks, find, lookup
from memories.rules import fields as f
from memories.rules import secrets
from memories.rules.errors import BadRequest
from memories.rules.tiers import ANY_TIER
from memories.writes import doors

DEFAULT_LIMIT = 50
# What PUT may set. `expires_at` is the name a fetched memory carries it under.
WRITABLE = {
    "description",
    "body",
    "tags",
    "references",
    "priority",
    "load",
    "source",
    "expires",
    "expires_at",
    "verified",
    "allow_secret",
    "project",
    "supersedes",
}
# What GET answers beside the writable fields, accepted so that a memory fetched, changed
# and sent back is a valid PUT: the stamps no write sets must be the memory's own (400
# otherwise), the rest are ignored.
STAMPS = ("created_at", "verified_at")
SHOWN = {
    "name",
    *STAMPS,
    "updated_at",
    "read_count",
    "expired",
    "superseded_by",
    "referenced_by",
    "replaces",
    "notes",
}
EDIT_FIELDS = {"old_string", "new_string", "replace_all", "verified"}
READ_FIELDS = {"offset"}


def _location(memory: Memory) -> str:
    url = reverse("api:memory", args=[memory.name])
    return url + "?" + urlencode({"project": memory.project_name or ""})


@authorize(READ)
def list_memories(request: HttpRequest):
    form = valid(find.FindForm(request.GET))
    data = form.cleaned_data
    limit, offset = data["limit"] or DEFAULT_LIMIT, data["offset"] or 0
    page = find.Page(
        limit=limit,
        offset=offset,
        after=data["after"] or None,
        before=data["before"] or None,
        rows="dicts",
    )
    found = find.find(find.Question.of(form), page)
    answer = {
        "memories": list(found.dicts()),
        "count": found.count,
        "summary": found.summary,
        **_links(request, found, offset, limit),
    }
    if found.question.searched:
        answer.update(last_resort=found.last_resort, capped=found.capped)
    return ok(answer)


def _links(request: HttpRequest, found: find.Found, offset: int, limit: int) -> dict:
    """The next and previous pages' URLs (None at either end): a listing's by the cursors of
    its rows, as the list page's, so a walk holds however the store changes; a search's by
    offset, as it is ranked."""

    def url(**page) -> str:
        unpaged = {"after": None, "before": None, "offset": None}
        return reverse("api:memories") + query_string(request.GET, **{**unpaged, **page})

    if found.question.searched:
        before = offset - limit
        following = offset + limit < found.count
        return {
            "next": url(offset=str(offset + limit)) if following else None,
            "previous": url(offset=str(before) if before > 0 else None) if offset else None,
        }
    return {
        "next": url(after=found.next_cursor) if found.next_cursor else None,
        "previous": url(before=found.previous_cursor) if found.previous_cursor else None,
    }


@authorize(READ)
def get_memory(request: HttpRequest, name: str):
    memory = lookup.locate(f.name(name), query_tier(request))
    return ok(backlinks.detail_dict(memory), etag=memory.etag)


@authorize(WRITE)
def put_memory(request: HttpRequest, name: str):
    name = f.name(name)
    project = query_tier(request)
    data = json_body(request, allowed=WRITABLE | SHOWN)
    if data.get("name") not in (None, name):
        raise BadRequest(
            f"The body names '{data['name']}' but the URL '{name}'; PUT does not rename.",
            field="name",
        )
    expires = data.get("expires")
    if "expires_at" in data:
        if expires is not None and data["expires_at"] not in (None, expires):
            raise BadRequest("expires and expires_at disagree; send one.", field="expires")
        expires = data["expires_at"] if expires is None else expires
    move_to = ANY_TIER
    if "project" in data:
        move_to = data["project"]
        if not isinstance(move_to, str | None):
            raise BadRequest(
                "project is a project's name, or null for the global tier.", field="project"
            )
        # "" is the global tier, as an empty `project=` is.
        move_to = move_to or None
    result = doors.write(
        name,
        project=project,
        **doors.fields_given(data),
        expires=expires,
        verified=_flag(data, "verified"),
        move_to=move_to,
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
        stamps={stamp: data[stamp] for stamp in STAMPS if stamp in data},
        allow_secret=secrets.allowance(data.get("allow_secret"), admin=request.api_role == ADMIN),
    )
    memory = result.memory
    response = ok(
        {**backlinks.detail_dict(memory), "notes": result.notes},
        201 if result.created else 200,
        etag=memory.etag,
    )
    if result.created:
        response["Location"] = _location(memory)
    return response


def _flag(data: dict, key: str) -> bool:
    """A true/false field where null is the field left out (false)."""
    value = data.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise BadRequest(f"{key} is true or false.", field=key)
    return value


@authorize(WRITE)
def edit_memory(request: HttpRequest, name: str):
    name = f.name(name)
    project = query_tier(request)
    data = json_body(request, allowed=EDIT_FIELDS)
    result = doors.edit(
        name,
        project=project,
        old_string=data.get("old_string"),
        new_string=data.get("new_string"),
        replace_all=_flag(data, "replace_all"),
        verified=_flag(data, "verified"),
        if_match=request.headers.get("If-Match"),
    )
    memory = result.memory
    return ok(
        {
            **backlinks.detail_dict(memory),
            "replacements": result.replacements,
            "context": result.context,
        },
        etag=memory.etag,
    )


@authorize(READ)
def read_memory(request: HttpRequest, name: str):
    """The agent's read: the one route that counts a read. Read authority is enough, as the
    agent's memory tools ask only for read."""
    name = f.name(name)
    project = query_tier(request)
    data = json_body(request, allowed=READ_FIELDS, optional=True)
    offset = data.get("offset")
    result = doors.read(name, project=project, offset=0 if offset is None else offset)
    memory = result.memory
    return ok(
        {
            **memory.to_dict(),
            "body": result.text,
            "caption": result.caption,
            "offset": result.offset,
            "next_offset": result.next_offset,
            "resolved_references": [
                {
                    "reference": ref.target,
                    "project": ref.memory.project_name if ref.memory else None,
                    "description": ref.memory.description if ref.memory else None,
                }
                for ref in backlinks.resolve_references(memory)
            ],
            "referenced_by": backlinks.backlink_dicts(memory),
        },
        etag=memory.etag,
    )


@authorize(WRITE)
def delete_memory(request: HttpRequest, name: str):
    result = doors.delete(
        f.name(name), project=query_tier(request), if_match=request.headers.get("If-Match")
    )
    return ok(
        {
            "deleted": result.name,
            "project": result.project,
            "referenced_by": [backlinks.backlink(m) for m in result.referenced_by],
        }
    )
