"""/v1/bulk: the list page's bulk actions, on memories named in the body or on every memory
the query's filters (those of GET /v1/memories) match, through the same bulk doors
(memories.writes.bulk): all or nothing, one change set to undo."""

from django.http import HttpRequest

from memadmin.api.auth import WRITE, authorize
from memadmin.api.responses import json_body, ok, valid
from memories.reads import backlinks, find, lookup
from memories.reads import history as history_reads
from memories.reads.filters import MemoryFilterForm
from memories.rules import fields as f
from memories.rules.errors import BadRequest
from memories.rules.tiers import ANY_TIER
from memories.writes import bulk, doors, history

# The action, whom it takes, why, and the value each action sets.
FIELDS = {"action", "memories", "matching", "reason", "priority", "shift", "load", "tag", "to"}
NAMED = "memories is a list of memories, each a name or {name, project}."


def _named(item) -> tuple[str, object]:
    """One memory of `memories`: a name (in whichever tier holds it) or {name, project}
    (project null or "": the global tier)."""
    if isinstance(item, str):
        return f.name(item), ANY_TIER
    if not isinstance(item, dict) or "name" not in item or set(item) - {"name", "project"}:
        raise BadRequest(NAMED, field="memories")
    name = item["name"]
    if not isinstance(name, str):
        raise BadRequest(NAMED, field="memories")
    if "project" not in item:
        return f.name(name), ANY_TIER
    project = item["project"]
    if project is not None and not isinstance(project, str):
        raise BadRequest(
            "A memory's project is a project's name, or null for the global tier.",
            field="memories",
        )
    return f.name(name), f.project_name(project) if project else None


def _targets(request: HttpRequest, data: dict) -> list[int]:
    """The ids the action takes: the memories named, or every one the query matches."""
    named, matching = data.get("memories"), data.get("matching", False)
    if not isinstance(matching, bool):
        raise BadRequest("matching is true or false.", field="matching")
    if matching:
        if named is not None:
            raise BadRequest(
                "Name the memories or ask for every memory matching, not both.", field="memories"
            )
        question = find.Question.of(valid(MemoryFilterForm(request.GET)))
        return find.every_id(question, limit=bulk.BULK_LIMIT)
    if request.GET:
        raise BadRequest(
            "The query's filters choose memories only with matching: true in the body.",
            field=sorted(request.GET)[0],
        )
    if named is None:
        raise BadRequest(
            "Name the memories to change (memories), or send matching: true to change every "
            "memory the query's filters match.",
            field="memories",
        )
    if not isinstance(named, list) or not named:
        raise BadRequest(NAMED, field="memories")
    if len(named) > bulk.BULK_LIMIT:
        raise BadRequest(
            f"{len(named):,} memories were named; a bulk action takes at most "
            f"{bulk.BULK_LIMIT:,} at a time.",
            field="memories",
        )
    return lookup.ids_named(_named(item) for item in named)


def _receipt(result: bulk.BulkResult) -> dict:
    """What the action did: the memories as it left them (or those it deleted, with who
    still cites each outside the batch), those it left alone, and its change set."""
    deleted = [o for o in result.outcomes if isinstance(o, doors.DeleteResult)]
    written = [o.memory for o in result.outcomes if isinstance(o, doors.WriteResult)]
    gone = {(outcome.name, outcome.project) for outcome in deleted}
    group = result.change_set_id and history_reads.change_set(result.change_set_id)
    return {
        "changed": len(result.targets),
        "memories": [memory.to_dict() for memory in written],
        "deleted": [
            {
                "deleted": outcome.name,
                "project": outcome.project,
                "referenced_by": [
                    backlinks.backlink(m)
                    for m in outcome.referenced_by
                    if (m.name, m.project_name) not in gone
                ],
            }
            for outcome in deleted
        ],
        "unchanged": [{"name": m.name, "project": m.project_name} for m in result.unchanged],
        "missing": result.missing,
        "change_set": history_reads.change_set_dict(group, len(result.targets)) if group else None,
    }


@authorize(WRITE)
def bulk_action(request: HttpRequest):
    """One bulk action: every memory changed, or none (409 or 400, each refused row named)."""
    data = json_body(request, allowed=FIELDS)
    action = bulk.action(data.get("action"))
    with history.acting(reason=data.get("reason")):
        result = action(_targets(request, data), data)
    if result.refused:
        raise result.refusal()
    return ok(_receipt(result))
