"""The consolidation review (seed 004's "dream", drawn without a language model): clusters of
memories of one tier that say the same thing, each with a plan to fold it into one survivor.

A cluster is exact duplicates (the same description and body) or near duplicates by meaning
(each saying the same as the cluster's centre by the write door's rule, meaning.say_the_same;
at most meaning.NEIGHBOURS_KEPT pairs a memory, so a tier of near-copies stays bounded). Its
plan: the survivor (the most important: live before expired, then priority, reads, age), the sources
to put in the trash, their tags and references merged into the survivor, and the references
elsewhere that name a source re-pointed to the survivor.

A one-click apply (the cluster's key, the whole plan's) trashes only the sources that lose
nothing (facts.loses_nothing: exact duplicates, or a description and body each contained in the
survivor's). Every other member is a review (`Review`): shown beside the survivor with their
differences marked, and merged by hand with its own key, applied as reviewed.

Each cluster carries a key binding every memory it touches to its version (the id of its
latest revision; reads record none), so applying it (memories.writes.consolidation) can
refuse a cluster that changed since it was drawn.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Max
from django.utils import timezone

from memories.models import GLOBAL_TIER, Memory, Revision
from memories.reads import meaning
from memories.reads.backlinks import referenced_by_each
from memories.reads.hygiene import Segment, marked_diff
from memories.rules import facts, tiers
from memories.rules.errors import BadRequest
from projects.models import Project

PLAN_LIMIT = 50  # clusters drawn at once: the page and /v1 default
PLAN_MAX = 500
EXACT, NEAR = "exact", "near"


def versions(ids) -> dict[int, int]:
    """Each memory's version: its latest revision's id, 0 for one with no revision."""
    found = dict(
        Revision.objects.filter(memory_id__in=meaning.id_set(sorted(set(ids))))
        .values("memory_id")
        .annotate(last=Max("id"))
        .values_list("memory_id", "last")
    )
    return {memory_id: found.get(memory_id, 0) for memory_id in ids}


def merged(first: list[str], others: list[list[str]], *, rename=None, drop=()) -> list[str]:
    """`first` then what `others` add, each once, in order; `rename` maps a value to another
    (a source's name to the survivor's) and values in `drop` are left out."""
    rename = rename or {}
    out: list[str] = []
    for values in (first, *others):
        for value in values:
            value = rename.get(value, value)
            if value not in drop and value not in out:
                out.append(value)
    return out


@dataclass
class Repoint:
    """A memory outside the cluster whose references named a source: what they become."""

    memory: Memory
    version: int
    references: list[str]
    replaces: list[str]  # the sources' names it named

    def to_dict(self) -> dict:
        return {
            "name": self.memory.name,
            "project": self.memory.project_name,
            "version": self.version,
            "references": self.references,
        }


@dataclass
class Cluster:
    kind: str  # EXACT or NEAR
    similarity: float  # the least cosine of a member to the centre (1.0 for exact)
    survivor: Memory
    sources: list[Memory]
    versions: dict[int, int]
    tags: list[str]  # the survivor's after the merge
    references: list[str]
    repoints: list[Repoint] = field(default_factory=list)
    reviews: list["Review"] = field(default_factory=list)  # members merged by hand

    @property
    def members(self) -> int:
        return 1 + len(self.sources) + len(self.reviews)

    @property
    def tier(self) -> str:
        return tiers.label(self.survivor.project_name)

    @property
    def tags_added(self) -> list[str]:
        return [t for t in self.tags if t not in self.survivor.tags]

    @property
    def references_added(self) -> list[str]:
        return [r for r in self.references if r not in self.survivor.references]

    @property
    def changes_survivor(self) -> bool:
        return (self.tags, self.references) != (self.survivor.tags, self.survivor.references)

    @property
    def key(self) -> str:
        """The key applying this merge ("" when it trashes nothing)."""
        if not self.sources:
            return ""

        def part(memories):
            return ",".join(f"{m.id}.{self.versions[m.id]}" for m in memories)

        return "-".join(
            (part([self.survivor]), part(self.sources), part(r.memory for r in self.repoints))
        )

    def to_dict(self, now=None) -> dict:
        def member(memory: Memory) -> dict:
            return {**memory.to_dict(now), "version": self.versions[memory.id]}

        return {
            "key": self.key or None,
            "kind": self.kind,
            "similarity": round(self.similarity, 4),
            "survivor": member(self.survivor),
            "sources": [member(m) for m in self.sources],
            "merged": {"tags": self.tags, "references": self.references},
            "repoint": [r.to_dict() for r in self.repoints],
            "review": [r.to_dict(now) for r in self.reviews],
        }


def loses_nothing(source: Memory, survivor: Memory) -> bool:
    """Whether trashing `source` loses nothing `survivor` does not say (facts.loses_nothing)."""
    return facts.loses_nothing(source.description, source.body, survivor.description, survivor.body)


@dataclass
class Review:
    """A member of a cluster that says something its survivor does not: its merge into the
    survivor (a Cluster of that one source, with its own key), applied only as reviewed, and
    the differences to read first."""

    merge: Cluster

    @property
    def memory(self) -> Memory:
        return self.merge.sources[0]

    @property
    def survivor(self) -> Memory:
        return self.merge.survivor

    @property
    def description_diff(self) -> tuple[list[Segment], list[Segment]]:
        """(the survivor's, the member's) description, each marked where it differs."""
        return marked_diff(self.survivor.description, self.memory.description)

    @property
    def body_diff(self) -> tuple[list[Segment], list[Segment]]:
        return marked_diff(self.survivor.body, self.memory.body)

    @property
    def tags_only_here(self) -> list[str]:
        return [t for t in self.memory.tags if t not in self.survivor.tags]

    @property
    def tags_only_survivor(self) -> list[str]:
        return [t for t in self.survivor.tags if t not in self.memory.tags]

    @property
    def priority_differs(self) -> bool:
        return self.memory.priority != self.survivor.priority

    def to_dict(self, now=None) -> dict:
        def words(segments: list[Segment]) -> list[str]:
            return [s.text for s in segments if s.changed and s.text.strip()]

        survivor_description, description = self.description_diff
        survivor_body, body = self.body_diff
        return {
            "key": self.merge.key,
            "memory": {**self.memory.to_dict(now), "version": self.merge.versions[self.memory.id]},
            "merged": {"tags": self.merge.tags, "references": self.merge.references},
            "repoint": [r.to_dict() for r in self.merge.repoints],
            "differences": {
                "description": {
                    "survivor": words(survivor_description),
                    "member": words(description),
                },
                "body": {"survivor": words(survivor_body), "member": words(body)},
                "tags": {"survivor": self.tags_only_survivor, "member": self.tags_only_here},
                "priority": {"survivor": self.survivor.priority, "member": self.memory.priority},
            },
        }


@dataclass
class Plan:
    clusters: list[Cluster]
    count: int  # clusters in all, drawn or not
    limit: int

    @property
    def keys(self) -> list[str]:
        """The keys of the one-click apply: the sources that lose nothing, never a review."""
        return [c.key for c in self.clusters if c.key]

    @property
    def trashed(self) -> int:
        """The memories the whole plan's one-click apply would put in the trash."""
        return sum(len(c.sources) for c in self.clusters)

    @property
    def reviews(self) -> int:
        return sum(len(c.reviews) for c in self.clusters)

    def to_dict(self, now=None) -> dict:
        return {
            "count": self.count,
            "limit": self.limit,
            "clusters": [c.to_dict(now) for c in self.clusters],
        }


def _survivor_order(memory: Memory, now) -> tuple:
    return (
        memory.is_expired(now),
        memory.priority,
        -memory.read_count,
        memory.created_at,
        memory.id,
    )


def _exact_groups(tier: int) -> list[list[int]]:
    """Ids of the memories of `tier` sharing a description and a body, grouped."""
    repeated = (
        Memory.objects.filter(tier=tier)
        .values("description")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values("description")
    )
    rows = (
        Memory.objects.filter(tier=tier, description__in=repeated)
        .order_by("id")
        .values_list("id", "description", "body")
    )
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for memory_id, description, body in rows:
        groups[(description, body)].append(memory_id)
    return [ids for ids in groups.values() if len(ids) > 1]


def _clusters_of(tier: int) -> list[tuple[list[int], float, bool]]:
    """(ids, least cosine to the centre, exact) of each cluster of one tier.

    Around centres, most-connected first: each memory joins one cluster only, so a chain of
    small differences never folds unrelated memories into one.
    """
    exact = _exact_groups(tier)
    twin_of = {memory_id: i for i, ids in enumerate(exact) for memory_id in ids}
    cosine: dict[int, dict[int, float]] = defaultdict(dict)
    for ids in exact:
        for a in ids:
            cosine[a].update({b: 1.0 for b in ids if b != a})
    for a, b, sim in meaning.near_duplicate_pairs(tier):
        cosine[a][b] = max(sim, cosine[a].get(b, 0.0))
        cosine[b][a] = cosine[a][b]
    assigned: set[int] = set()
    clusters = []
    for centre in sorted(cosine, key=lambda m: (-len(cosine[m]), -sum(cosine[m].values()), m)):
        if centre in assigned:
            continue
        members = [m for m in cosine[centre] if m not in assigned]
        if not members:
            continue
        ids = sorted([centre, *members])
        assigned.update(ids)
        same = centre in twin_of and all(twin_of.get(m) == twin_of[centre] for m in members)
        clusters.append((ids, min(cosine[centre][m] for m in members), same))
    return clusters


def _tiers(project) -> list[int]:
    """The tiers a plan covers: `project` None the global one, a name its project's, and
    tiers.ANY_TIER every tier."""
    if project is tiers.ANY_TIER:
        return [GLOBAL_TIER, *Project.objects.order_by("name").values_list("id", flat=True)]
    return [GLOBAL_TIER if project is None else Project.objects.named(project).id]


def plan(project=tiers.ANY_TIER, *, limit: int = PLAN_LIMIT, now=None) -> Plan:
    """The consolidation plan of a tier (or of every tier, each cluster within one), the
    largest clusters first, the first `limit` of them drawn whole."""
    now = now or timezone.now()
    found = [cluster for tier in _tiers(project) for cluster in _clusters_of(tier)]
    found.sort(key=lambda c: (-len(c[0]), -c[1], c[0][0]))
    page = found[:limit]
    by_id = Memory.objects.select_related("project").in_bulk(
        [memory_id for ids, _, _ in page for memory_id in ids]
    )
    clusters = [
        _drawn([by_id[m] for m in ids], sim, EXACT if same else NEAR, now)
        for ids, sim, same in page
    ]
    _with_repoints([*clusters, *(r.merge for c in clusters for r in c.reviews)])
    return Plan(clusters, len(found), limit)


def _drawn(members: list[Memory], similarity: float, kind: str, now) -> Cluster:
    survivor, *others = sorted(members, key=lambda m: _survivor_order(m, now))
    sources = [m for m in others if loses_nothing(m, survivor)]
    cluster = _planned(survivor, sources, similarity, kind)
    cluster.reviews = [
        Review(_planned(survivor, [m], similarity, kind))
        for m in others
        if not loses_nothing(m, survivor)
    ]
    return cluster


def _planned(survivor: Memory, sources: list[Memory], similarity: float, kind: str) -> Cluster:
    """The merge of `sources` into `survivor`: the survivor's tags and references, then
    theirs; a reference to any member would name the survivor itself, so it goes."""
    names = {m.name for m in (survivor, *sources)}
    return Cluster(
        kind=kind,
        similarity=similarity,
        survivor=survivor,
        sources=sources,
        versions={},
        tags=merged(survivor.tags, [m.tags for m in sources]),
        references=merged(survivor.references, [m.references for m in sources], drop=names),
    )


def _with_repoints(clusters: list[Cluster]) -> None:
    """Each cluster's re-points (the memories outside it citing a source, as their band
    reads the name) and the versions of every memory the clusters touch."""
    sources = [m for c in clusters for m in c.sources]
    citing = referenced_by_each(sources)
    for cluster in clusters:
        members = {m.id for m in (cluster.survivor, *cluster.sources)}
        rename = {m.name: cluster.survivor.name for m in cluster.sources}
        held: dict[int, Memory] = {}
        for source in cluster.sources:
            for memory in citing[source.id]:
                if memory.id not in members:
                    held[memory.id] = memory
        ordered = sorted(
            held.values(), key=lambda m: (m.priority, -m.created_at.timestamp(), -m.id)
        )
        cluster.repoints = [
            Repoint(
                m,
                0,
                merged(m.references, [], rename=rename),
                [r for r in m.references if r in rename],
            )
            for m in ordered
        ]
    touched = [
        m.id for c in clusters for m in (c.survivor, *c.sources, *(r.memory for r in c.repoints))
    ]
    found = versions(touched)
    for cluster in clusters:
        cluster.versions = {
            m.id: found[m.id]
            for m in (cluster.survivor, *cluster.sources, *(r.memory for r in cluster.repoints))
        }
        for repoint in cluster.repoints:
            repoint.version = found[repoint.memory.id]


# --- a cluster named by its key ----------------------------------------------------------------

_PAIR = r"\d{1,18}\.\d{1,18}"
KEY_RE = re.compile(rf"^({_PAIR})-({_PAIR}(?:,{_PAIR})*)-((?:{_PAIR}(?:,{_PAIR})*)?)$")


@dataclass
class Keyed:
    """What a key says: the survivor, sources and re-pointed memories by id, each with the
    version it had when the plan was drawn."""

    key: str
    survivor: int
    sources: list[int]
    repoints: list[int]
    versions: dict[int, int]

    @property
    def ids(self) -> list[int]:
        return [self.survivor, *self.sources, *self.repoints]


def parse_key(key) -> Keyed:
    """A cluster's key as the plan gave it; anything else is refused (400)."""
    found = KEY_RE.match(key) if isinstance(key, str) else None
    if found is None:
        raise BadRequest(
            "A cluster is named by the key its plan gave it, such as '12.340-13.341-'.",
            field="clusters",
        )
    parts = [
        [tuple(int(n) for n in pair.split(".")) for pair in group.split(",") if pair]
        for group in found.groups()
    ]
    ids = [memory_id for group in parts for memory_id, _ in group]
    if len(set(ids)) != len(ids):
        raise BadRequest(f"The cluster key '{key}' names a memory twice.", field="clusters")
    (survivor, _), sources, repoints = parts[0][0], parts[1], parts[2]
    return Keyed(
        key=key,
        survivor=survivor,
        sources=[m for m, _ in sources],
        repoints=[m for m, _ in repoints],
        versions=dict(pair for group in parts for pair in group),
    )


def redrawn(keyed: Keyed) -> tuple[Cluster | None, list[str]]:
    """The cluster a key names, drawn again from the store as it is now, and what changed
    since the key was drawn (empty: the same memories at the same versions, with the same
    memories citing its sources, so the plan is the one that was shown)."""
    by_id = Memory.objects.select_related("project").in_bulk(keyed.ids)
    survivor = by_id.get(keyed.survivor)
    if survivor is None:
        return None, ["the survivor is no longer in the store"]
    sources = [by_id[m] for m in keyed.sources if m in by_id]
    kind = EXACT if all(_same_text(s, survivor) for s in sources) else NEAR
    cluster = _planned(survivor, sources, 1.0, kind)
    if sources:
        _with_repoints([cluster])
    changed = [
        f"'{by_id[m].name}' changed (version {cluster_version} now, {keyed.versions[m]} then)"
        for m, cluster_version in cluster.versions.items()
        if m in keyed.versions and keyed.versions[m] != cluster_version
    ]
    gone = [m for m in keyed.sources if m not in by_id]
    if gone and sources:
        changed.append(f"{len(gone)} of its sources left the store")
    if any(s.tier != survivor.tier for s in sources):
        changed.append("its memories are no longer in one tier")
    planned = set(keyed.repoints)
    changed.extend(
        f"'{r.memory.name}' cites a source now"
        for r in cluster.repoints
        if r.memory.id not in planned
    )
    if planned - {r.memory.id for r in cluster.repoints}:
        changed.append("a memory it re-points no longer cites a source")
    return cluster, changed


def _same_text(a: Memory, b: Memory) -> bool:
    return (a.description, a.body) == (b.description, b.body)
