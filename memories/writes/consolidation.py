"""Applying the consolidation review's plan (memories.reads.consolidation), a cluster at a time.

Each cluster applied is one change set, through the doors: the survivor takes the merged
tags and references (doors.write), the memories citing a source are re-pointed to the
survivor (doors.write), the sources go to the trash (doors.delete). Undoing that change set
(memories.writes.undo) restores every one of them. A cluster is refused, and nothing of it
lands, when any memory it touches changed since the plan was drawn (the versions its key
holds) or when a door refuses (a rule of the fields, the budget, a name); it is skipped when
its sources have all left the store already (applied before, or removed). Clusters are
independent: applying the whole plan may apply some and refuse others.

A one-click apply trashes only sources that lose nothing (consolidation.loses_nothing: their
description and body contained in the survivor's); a key naming any other is refused with a
sentence saying so. Such a member is merged by hand: its own key, applied `reviewed`, after its
differences were read on the page (or from /v1's plan).
"""

from dataclasses import dataclass, field

from django.db import transaction

from memories.models import ChangeSet
from memories.reads import consolidation
from memories.rules import tiers
from memories.rules.errors import BadRequest, DomainError
from memories.writes import doors, history

APPLIED, REFUSED, SKIPPED = "applied", "refused", "skipped"


@dataclass
class Outcome:
    key: str
    outcome: str  # APPLIED, REFUSED or SKIPPED
    survivor: str = ""  # the survivor as the tier words it, once it is known
    reason: str = ""
    change_set: ChangeSet | None = None
    trashed: int = 0
    repointed: int = 0

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "outcome": self.outcome,
            "survivor": self.survivor,
            "reason": self.reason,
            "change_set": self.change_set.id if self.change_set else None,
            "trashed": self.trashed,
            "repointed": self.repointed,
        }


@dataclass
class Receipt:
    outcomes: list[Outcome] = field(default_factory=list)

    def _count(self, outcome: str) -> int:
        return sum(o.outcome == outcome for o in self.outcomes)

    @property
    def planned(self) -> int:
        return len(self.outcomes)

    @property
    def applied(self) -> int:
        return self._count(APPLIED)

    @property
    def refused(self) -> int:
        return self._count(REFUSED)

    @property
    def skipped(self) -> int:
        return self._count(SKIPPED)

    def to_dict(self) -> dict:
        return {
            "planned": self.planned,
            "applied": self.applied,
            "refused": self.refused,
            "skipped": self.skipped,
            "clusters": [o.to_dict() for o in self.outcomes],
        }


def apply(keys, *, reviewed: bool = False) -> Receipt:
    """Apply the clusters these keys name (as the plan gave them), each on its own; with
    `reviewed`, also the sources that say something the survivor does not (merged by hand)."""
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise BadRequest("clusters is a list of the keys the plan gave.", field="clusters")
    # The count is of the list sent, repeats included, as the OpenAPI document's maxItems is.
    if len(keys) > consolidation.PLAN_MAX:
        raise BadRequest(
            f"At most {consolidation.PLAN_MAX} clusters are applied at once.", field="clusters"
        )
    keys = list(dict.fromkeys(keys))
    if not keys:
        raise BadRequest("Choose at least one cluster to apply.", field="clusters")
    keyed = [consolidation.parse_key(key) for key in keys]
    return Receipt([_apply_one(k, reviewed) for k in keyed])


def _apply_one(keyed: consolidation.Keyed, reviewed: bool) -> Outcome:
    with transaction.atomic():
        cluster, changed = consolidation.redrawn(keyed)
        if cluster is None:
            return Outcome(keyed.key, REFUSED, reason=f"Refused: {changed[0]}.")
        survivor = tiers.memory_label(cluster.survivor.name, cluster.survivor.project_name)
        if not cluster.sources:
            return Outcome(
                keyed.key,
                SKIPPED,
                survivor,
                "Its sources are no longer in the store: nothing to do.",
            )
        if changed:
            return Outcome(
                keyed.key,
                REFUSED,
                survivor,
                f"Changed since the plan was drawn ({'; '.join(changed)}): draw the plan again.",
            )
        unread = [
            s.name for s in cluster.sources if not consolidation.loses_nothing(s, cluster.survivor)
        ]
        if unread and not reviewed:
            names = ", ".join(f"'{name}'" for name in unread)
            return Outcome(
                keyed.key,
                REFUSED,
                survivor,
                f"Refused: {names} {'says' if len(unread) == 1 else 'say'} something "
                f"'{cluster.survivor.name}' does not; read the differences and merge by hand.",
            )
        noun = "memory" if len(cluster.sources) == 1 else "memories"
        summary = f"Consolidate {len(cluster.sources)} {noun} into '{cluster.survivor.name}'"
        if unread:
            summary += " after review"
        try:
            with history.change_set(summary) as group:
                _write(cluster)
        except DomainError as error:
            return Outcome(keyed.key, REFUSED, survivor, f"Refused: {error.message}")
        return Outcome(
            keyed.key,
            APPLIED,
            survivor,
            change_set=group,
            trashed=len(cluster.sources),
            repointed=len(cluster.repoints),
        )


def _write(cluster: consolidation.Cluster) -> None:
    survivor = cluster.survivor
    if cluster.changes_survivor:
        doors.write(
            survivor.name,
            project=survivor.project_name,
            tags=cluster.tags,
            references=cluster.references,
        )
    for repoint in cluster.repoints:
        doors.write(
            repoint.memory.name,
            project=repoint.memory.project_name,
            references=repoint.references,
        )
    for source in cluster.sources:
        doors.delete(source.name, project=source.project_name)
