"""Backlink graphs: one memory's neighbourhood and the store-wide graph, as nodes and edges.

An edge is a reference resolved the way `selectors.resolve_references` resolves it: to the
memory the citing memory's band holds under that name. A reference naming no memory of its
band leads to a dangling target, a node of its own kind: a name no memory has (a note still to
write), a path, a URL or an external id. Nodes carry what the picture encodes (load, read
count, expiry, tier); an edge between two tiers is marked.
"""

import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection
from django.utils import timezone

from memories.errors import InvalidField
from memories.fields import NAME_RE
from memories.filters import MemoryFilters
from memories.models import Memory
from memories.selectors import resolve_in_band

DEFAULT_NODE_CAP = 1500
MAX_NODE_CAP = 10_000
MAX_DEPTH = 3
MEMORY = "memory"
DANGLING_KINDS = ("name", "path", "url", "id")

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|mailto:|www\.")
# Ticket keys (JIRA-4312), numbers (#12, 4312), UUIDs and scheme-prefixed ids (gh:org/repo#1).
_EXTERNAL_ID = re.compile(
    r"[A-Z][A-Z0-9]*-\d+|#?\d+|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
    r"|[A-Za-z][\w.-]*:\S+"
)


def target_kind(target: str) -> str:
    """What a reference that names no memory points at: a name, a path, a URL or an id."""
    if _URL.match(target):
        return "url"
    if _EXTERNAL_ID.fullmatch(target):
        return "id"
    if "/" in target or "\\" in target or target.startswith("~"):
        return "path"
    if NAME_RE.fullmatch(target):
        return "name"
    return "id"


class Option(NamedTuple):
    """A memory holding a cited name, as `resolve_in_band` weighs it."""

    id: int
    tier: int


class Link(NamedTuple):
    """One reference, resolved: `to` is the memory it names, or None (dangling)."""

    source: int
    source_tier: int
    target: str
    to: Option | None

    @property
    def cross_tier(self) -> bool:
        return self.to is not None and self.to.tier != self.source_tier


# Every row of one reference carries one memory holding the cited name (none: NULLs), so the
# band rule sees all of them; the rule itself is applied in Python by resolve_in_band.
_REFERENCES = """
SELECT r.memory_id, s.tier, r.target, d.id, d.tier{flags}
FROM memories_reference r
JOIN memories_memory s ON s.id = r.memory_id
LEFT JOIN memories_memory d ON d.name = r.target
{where}
"""


def _resolve(rows) -> list[Link]:
    grouped: dict[tuple[int, str], tuple[int, list[Option]]] = {}
    for source, source_tier, target, option_id, option_tier, *_ in rows:
        _, options = grouped.setdefault((source, target), (source_tier, []))
        if option_id is not None:
            options.append(Option(option_id, option_tier))
    return [
        Link(source, tier, target, resolve_in_band(options, tier))
        for (source, target), (tier, options) in grouped.items()
    ]


@dataclass
class Links:
    """The resolved references touching a scope of memories (every memory when unscoped)."""

    links: list[Link]
    scope_ids: set[int] | None  # the scope's memories met at either end; None: every memory

    def in_scope(self, memory_id: int | None) -> bool:
        if memory_id is None:
            return False
        return self.scope_ids is None or memory_id in self.scope_ids

    def outgoing(self) -> list[Link]:
        """The references the scope's memories make."""
        return [link for link in self.links if self.in_scope(link.source)]


def scope_queryset(filters: MemoryFilters | None, now: dt.datetime):
    queryset = Memory.objects.order_by()
    return filters.apply(queryset, now) if filters else queryset


def links(filters: MemoryFilters | None = None, now: dt.datetime | None = None) -> Links:
    """Every reference made by or resolving to a memory the filters admit (one query)."""
    now = now or timezone.now()
    if filters is None or not filters.active:
        with connection.cursor() as cursor:
            cursor.execute(_REFERENCES.format(flags="", where=""))
            return Links(_resolve(cursor.fetchall()), None)
    scope_sql, scope_params = (
        scope_queryset(filters, now).values("id", "name").query.sql_with_params()
    )
    sql = f"WITH scope AS MATERIALIZED ({scope_sql})" + _REFERENCES.format(
        flags=", r.memory_id IN (SELECT id FROM scope), d.id IN (SELECT id FROM scope)",
        where="WHERE r.memory_id IN (SELECT id FROM scope) OR r.target IN (SELECT name FROM scope)",
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, scope_params)
        rows = cursor.fetchall()
    scope_ids = {row[0] for row in rows if row[5]} | {row[3] for row in rows if row[6]}
    touching = [
        link
        for link in _resolve(rows)
        if link.source in scope_ids or (link.to is not None and link.to.id in scope_ids)
    ]
    return Links(touching, scope_ids)


@dataclass
class Node:
    key: str  # "m<id>" for a memory, "t<target>" for a dangling target
    kind: str  # "memory", or one of DANGLING_KINDS
    label: str  # the memory's name, or the target as written
    memory_id: int | None = None
    project: str | None = None
    description: str = ""
    load: str = ""
    priority: int | None = None
    read_count: int = 0
    expired: bool = False
    in_scope: bool = True
    degree: int = 0
    depth: int | None = None  # hops from the centre of a neighbourhood

    @property
    def tier(self) -> str | None:
        if self.kind != MEMORY:
            return None
        return "global" if self.project is None else self.project

    def to_dict(self) -> dict:
        data = {"id": self.key, "kind": self.kind, "label": self.label, "degree": self.degree}
        if self.kind == MEMORY:
            data.update(
                name=self.label,
                project=self.project,
                tier=self.tier,
                description=self.description,
                load=self.load,
                priority=self.priority,
                read_count=self.read_count,
                expired=self.expired,
                in_scope=self.in_scope,
            )
        else:
            data["target"] = self.label
        if self.depth is not None:
            data["depth"] = self.depth
        return data


@dataclass
class Edge:
    source: str
    target: str
    cross_tier: bool

    def to_dict(self) -> dict:
        return {
            "id": f"{self.source}>{self.target}",
            "source": self.source,
            "target": self.target,
            "cross_tier": self.cross_tier,
        }


@dataclass
class Graph:
    nodes: list[Node]
    edges: list[Edge]
    total_nodes: int  # before the cap
    total_edges: int
    cap: int
    isolated: int = 0  # memories in scope with no reference in or out (store-wide graph)
    centre: str | None = None
    depth: int | None = None
    partial: bool = False  # a neighbourhood walk stopped at the cap before its depth

    @property
    def capped(self) -> bool:
        return len(self.nodes) < self.total_nodes

    def summary(self) -> str:
        noun = "node" if self.total_nodes == 1 else "nodes"
        edges = "reference" if self.total_edges == 1 else "references"
        if self.capped:
            order = (
                "nearest first" if self.centre else "largest clusters first, most connected within"
            )
            of = "at least " if self.partial else ""
            text = (
                f"Showing {len(self.nodes):,} of {of}{self.total_nodes:,} {noun} ({order}) and "
                f"{len(self.edges):,} of {self.total_edges:,} {edges}"
            )
        else:
            text = f"{self.total_nodes:,} {noun} and {self.total_edges:,} {edges}"
        if self.isolated:
            memories = "memory" if self.isolated == 1 else "memories"
            text += f"; {self.isolated:,} {memories} with no reference in or out left out"
        return text + "."

    def to_dict(self) -> dict:
        return {
            "nodes": [node.to_dict() for node in self.nodes],
            "edges": [edge.to_dict() for edge in self.edges],
            "shown_nodes": len(self.nodes),
            "total_nodes": self.total_nodes,
            "shown_edges": len(self.edges),
            "total_edges": self.total_edges,
            "capped": self.capped,
            "cap": self.cap,
            "isolated": self.isolated,
            "centre": self.centre,
            "depth": self.depth,
            "partial": self.partial,
            "summary": self.summary(),
        }


def _memory_key(memory_id: int) -> str:
    return f"m{memory_id}"


def _target_key(target: str) -> str:
    return f"t{target}"


def _edges(found: list[Link]) -> dict[tuple[str, str], bool]:
    """(source key, target key) -> crosses tiers."""
    return {
        (
            _memory_key(link.source),
            _memory_key(link.to.id) if link.to else _target_key(link.target),
        ): link.cross_tier
        for link in found
    }


def _fill(nodes: dict[str, Node], now: dt.datetime) -> None:
    """Load the attributes of the memory nodes (one query)."""
    ids = [node.memory_id for node in nodes.values() if node.kind == MEMORY]
    rows = Memory.objects.filter(id__in=ids).values_list(
        "id", "name", "project__name", "description", "load", "priority", "read_count", "expires_at"
    )
    for memory_id, name, project, description, load, priority, read_count, expires_at in rows:
        node = nodes[_memory_key(memory_id)]
        node.label = name
        node.project = project
        node.description = description
        node.load = load
        node.priority = priority
        node.read_count = read_count
        node.expired = expires_at is not None and expires_at <= now


def _assemble(
    edge_map: dict[tuple[str, str], bool],
    order,
    cap: int,
    now: dt.datetime,
    *,
    in_scope=lambda key: True,
    extra: tuple[str, ...] = (),
) -> tuple[dict[str, Node], list[Edge], int]:
    """Nodes and edges within the cap, ranked by `order(key, degree)`; the total node count."""
    degree: Counter = Counter()
    for source, target in edge_map:
        degree[source] += 1
        degree[target] += 1
    for key in extra:
        degree.setdefault(key, 0)
    ranked = sorted(degree, key=lambda key: order(key, degree[key]))
    kept: dict[str, Node] = {}
    for key in ranked[:cap]:
        if key.startswith("m"):
            kept[key] = Node(key, MEMORY, key, memory_id=int(key[1:]), in_scope=in_scope(key))
        else:
            text = key[1:]
            kept[key] = Node(key, target_kind(text), text)
        kept[key].degree = degree[key]
    _fill(kept, now)
    edges = [
        Edge(source, target, cross)
        for (source, target), cross in edge_map.items()
        if source in kept and target in kept
    ]
    return kept, edges, len(degree)


def _components(edge_map) -> dict[str, int]:
    """The size of each node's connected component."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        root = key
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[key] != root:
            parent[key], key = root, parent[key]
        return root

    for source, target in edge_map:
        parent[find(source)] = find(target)
    sizes = Counter(find(key) for key in parent)
    return {key: sizes[find(key)] for key in parent}


def cap_value(value) -> int:
    """The node cap a request asks for, within 1..MAX_NODE_CAP."""
    if value in (None, ""):
        return DEFAULT_NODE_CAP
    try:
        cap = int(value)
    except (TypeError, ValueError):
        raise InvalidField("limit", "limit is a whole number of nodes.") from None
    if not 1 <= cap <= MAX_NODE_CAP:
        raise InvalidField("limit", f"limit is between 1 and {MAX_NODE_CAP:,} nodes.")
    return cap


def store_graph(
    filters: MemoryFilters | None = None,
    *,
    cap: int = DEFAULT_NODE_CAP,
    now: dt.datetime | None = None,
) -> Graph:
    """The backlink graph of the memories the filters admit and of what they cite or are cited
    by. Memories with no reference in or out are counted, not drawn. Past the cap, whole
    clusters are kept, largest first, and the most connected nodes within."""
    now = now or timezone.now()
    found = links(filters, now)
    edge_map = _edges(found.links)
    sizes = _components(edge_map)

    def order(key: str, degree: int):
        return (-sizes[key], -degree, key)

    def in_scope(key: str) -> bool:
        return found.in_scope(int(key[1:]))

    nodes, edges, total = _assemble(edge_map, order, cap, now, in_scope=in_scope)
    connected = {key for key in sizes if key.startswith("m") and found.in_scope(int(key[1:]))}
    isolated = scope_queryset(filters, now).count() - len(connected)
    graph = Graph(
        nodes=list(nodes.values()),
        edges=edges,
        total_nodes=total,
        total_edges=len(edge_map),
        cap=cap,
        isolated=isolated,
    )
    return graph


def _hop(frontier: dict[int, str]) -> list[Link]:
    """The references made by the frontier's memories or naming them (one query)."""
    sql = _REFERENCES.format(
        flags="",
        where=(
            "WHERE r.memory_id IN (SELECT value FROM json_each(%s)) "
            "OR r.target IN (SELECT value FROM json_each(%s))"
        ),
    )
    with connection.cursor() as cursor:
        ids, names = json.dumps(list(frontier)), json.dumps(sorted(set(frontier.values())))
        cursor.execute(sql, [ids, names])
        found = _resolve(cursor.fetchall())
    return [
        link
        for link in found
        if link.source in frontier or (link.to is not None and link.to.id in frontier)
    ]


def depth_value(value) -> int:
    if value in (None, ""):
        return 1
    try:
        depth = int(value)
    except (TypeError, ValueError):
        raise InvalidField("depth", f"depth is 1 to {MAX_DEPTH}.") from None
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidField("depth", f"depth is 1 to {MAX_DEPTH}.")
    return depth


def neighbourhood(
    memory: Memory,
    depth: int = 1,
    *,
    cap: int = DEFAULT_NODE_CAP,
    now: dt.datetime | None = None,
) -> Graph:
    """What a memory references and what references it, out to `depth` hops (1 to 3).

    Two queries a hop. Past the cap, the nearest nodes are kept, the most connected first.
    """
    now = now or timezone.now()
    centre = _memory_key(memory.id)
    hops = {centre: 0}
    frontier = {memory.id: memory.name}
    found: dict[tuple[int, str], Link] = {}
    partial = False
    for hop in range(1, depth + 1):
        reached = []
        for link in _hop(frontier):
            found[(link.source, link.target)] = link
            ends = [_memory_key(link.source)]
            ends.append(_memory_key(link.to.id) if link.to else _target_key(link.target))
            for key in ends:
                if key not in hops:
                    hops[key] = hop
                    if key.startswith("m"):
                        reached.append(int(key[1:]))
        if hop == depth or not reached:
            break
        if len(hops) > cap:
            partial = True
            break
        frontier = dict(Memory.objects.filter(id__in=reached).values_list("id", "name"))
    edge_map = _edges(list(found.values()))

    def order(key: str, degree: int):
        return (hops[key], -degree, key)

    nodes, edges, total = _assemble(edge_map, order, cap, now, extra=(centre,))
    for node in nodes.values():
        node.depth = hops[node.key]
    return Graph(
        nodes=sorted(nodes.values(), key=lambda node: (node.depth, node.key)),
        edges=edges,
        total_nodes=total,
        total_edges=len(edge_map),
        cap=cap,
        centre=centre,
        depth=depth,
        partial=partial,
    )
