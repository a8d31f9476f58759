"""Backlink graphs: one memory's neighbourhood and the store-wide graph, as nodes and edges.

An edge is a reference resolved the way `backlinks.resolve_references` resolves it: to the
memory the citing memory's band holds under that name. A reference naming no memory of its
band leads to a dangling target, a node of its own kind: a name no memory has (a note still to
write), a path, a URL or an external id. Nodes carry what the picture encodes (load, read
count, expiry, tier) and a memory's page; an edge between two tiers is marked.
"""

import datetime as dt
import heapq
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from operator import itemgetter
from typing import NamedTuple

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from memories import engine
from memories.models import NAME_SLOT, Memory, memory_url
from memories.reads import tallies
from memories.reads.filters import MemoryFilters
from memories.reads.meaning import id_set
from memories.reads.rows import db_time
from memories.rules import reach, tiers
from memories.rules.errors import InvalidField
from memories.rules.fields import NAME_RE

DEFAULT_NODE_CAP = 1500
MAX_NODE_CAP = 10_000
MAX_DEPTH = 3
LINK_CHUNK = 2000  # references read at a time by the store-wide graph
# A scope of at most this many memories has its references read at once; a larger one is
# walked newest first, SCOPE_CHUNK memories, then what the cap still wants (at most twice
# what was read, and SCOPE_CHUNK_MOST).
SCOPE_LOOKUP = 5000
SCOPE_CHUNK = 500
SCOPE_CHUNK_MOST = 8000
MEMORY = "memory"
OUTSIDE = "outside"  # a memory in a tier the caller holds no grant on
OUTSIDE_LABEL = "outside your reach"
DANGLING_KINDS = ("name", "path", "url", "id")

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|mailto:|www\.")
# Ticket keys (JIRA-4312), numbers (#12, 4312), UUIDs and scheme-prefixed ids (gh:org/repo#1).
_EXTERNAL_ID = re.compile(
    r"[A-Z][A-Z0-9]*-\d+|#?\d+|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
    r"|[A-Za-z][\w.-]*:\S+"
)


@lru_cache(maxsize=4096)  # a store-wide graph asks it of hundreds of targets, the same each time
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


class Link(NamedTuple):
    """One reference, resolved: `to` is the id of the memory it names, or None (dangling);
    `id` the reference's own, where it was read."""

    source: int
    target: str
    to: int | None
    id: int | None = None


# One row per reference, in reference order: the citing memory, the target as written and the
# memory it names in the citing memory's band, NULL when none does. This is the band rule of
# backlinks.resolve_in_band as one join: the schema keeps a name in the global tier alone or in
# projects alone, once per tier (memory_name_once_per_tier and the memories_cross_tier
# triggers), so a project's memory means the global holder or its own project's, and a global
# memory means the one memory of that name when only one exists. The citing memory's band is
# the reference row's own tier (kept by the triggers, checked by `memory verify`): joining the
# citing memory's row for its project cost about half the statement, its rows scattered over
# the file (bench/results/2026-12-01-graph-6).
_LINKS = f"""
SELECT r.memory_id, r.target, d.id{{flags}}
FROM memories_reference r
LEFT JOIN memories_memory d ON d.name = r.target AND CASE
    WHEN r.tier = {tiers.GLOBAL_TIER} THEN d.project_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM memories_memory o WHERE o.name = r.target AND o.id != d.id)
    ELSE d.project_id IS NULL OR d.project_id = r.tier END
{{where}}
"""


def _link_rows(
    filters: MemoryFilters | None, now: dt.datetime, *, before: int | None = None, limit=None
) -> tuple[list[tuple], bool]:
    """Rows of _LINKS and whether they are scoped (one query).

    Unscoped, every reference. Scoped by active filters, the references made by or resolving
    to a memory the filters admit, each row followed by whether its citing memory and the
    memory it names are admitted. With a `limit`, the newest `limit` references older than
    reference `before` (None: the newest of all), newest first, each row ending in its id.
    """
    conditions, params = [], []
    flags = ""
    if filters is not None and filters.active:
        try:
            scope_sql, params = (
                scope_queryset(filters, now).values("id", "name").query.sql_with_params()
            )
        except EmptyResultSet:  # filters no memory can pass, such as a period before year 1
            return [], True
        params = list(params)
        flags = ", r.memory_id IN (SELECT id FROM scope), d.id IN (SELECT id FROM scope)"
        # The target test lets the name index find the references into the scope.
        conditions.append(
            "(r.memory_id IN (SELECT id FROM scope) "
            "OR (r.target IN (SELECT name FROM scope) AND d.id IN (SELECT id FROM scope)))"
        )
    order = ""
    if limit is not None:
        flags += ", r.id"
        order = " DESC LIMIT %s"
        if before is not None:
            conditions.append("r.id < %s")
            params.append(before)
        params.append(limit)
    sql = _LINKS.format(
        flags=flags, where="WHERE " + " AND ".join(conditions) if conditions else ""
    )
    sql += f"ORDER BY r.id{order}"
    if filters is not None and filters.active:
        sql = f"WITH scope AS MATERIALIZED ({scope_sql})" + sql
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall(), filters is not None and filters.active


def _admitted(rows: list[tuple]) -> set[int]:
    """The memories in scope met at either end of scoped rows."""
    return {row[0] for row in rows if row[3]} | {row[2] for row in rows if row[4]}


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
    rows, scoped = _link_rows(filters, now or timezone.now())
    found = [Link(row[0], row[1], row[2]) for row in rows]
    return Links(found, _admitted(rows) if scoped else None)


@dataclass(slots=True)
class Node:
    # In the order a store-wide graph's nodes are built, by position: built by keyword they
    # took longer (bench/results/2026-12-02-graph-8).
    key: str  # "m<id>" for a memory, "t<target>" for a dangling target
    kind: str  # "memory", or one of DANGLING_KINDS
    label: str  # the memory's name, or the target as written
    degree: int = 0
    cluster: int = 0  # which connected piece of the drawn graph, 0 the largest
    memory_id: int | None = None
    project: str | None = None
    description: str = ""
    load: str = ""
    priority: int | None = None
    read_count: int = 0
    expired: bool = False
    url: str = ""  # a memory's page
    in_scope: bool = True
    depth: int | None = None  # hops from the centre of a neighbourhood

    @property
    def tier(self) -> str | None:
        if self.kind != MEMORY:
            return None
        return tiers.label(self.project)

    def to_dict(self) -> dict:
        # One literal per kind: a store-wide graph turns 1,500 nodes into dicts.
        if self.kind == MEMORY:
            data = {
                "id": self.key,
                "kind": MEMORY,
                "label": self.label,
                "degree": self.degree,
                "cluster": self.cluster,
                "name": self.label,
                "project": self.project,
                "tier": tiers.label(self.project),
                "url": self.url,
                "description": self.description,
                "load": self.load,
                "priority": self.priority,
                "read_count": self.read_count,
                "expired": self.expired,
                "in_scope": self.in_scope,
            }
        else:
            data = {
                "id": self.key,
                "kind": self.kind,
                "label": self.label,
                "degree": self.degree,
                "cluster": self.cluster,
                "target": self.label,
            }
        if self.depth is not None:
            data["depth"] = self.depth
        return data


@dataclass(slots=True)
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
class TableRow:
    """A node of the table view: (node, crosses tiers) pairs each way."""

    node: Node
    references: list[tuple[Node, bool]] = field(default_factory=list)
    cited_by: list[tuple[Node, bool]] = field(default_factory=list)


@dataclass
class Graph:
    nodes: list[Node]
    edges: list[Edge]
    total_nodes: int  # before the cap
    total_edges: int
    cap: int
    # Memories in scope with no reference in or out (store-wide graph, counted when whole).
    isolated: int = 0
    centre: str | None = None
    depth: int | None = None
    # A neighbourhood walk stopped at the cap before its depth, or the store-wide graph drawn
    # from its newest references alone (its newest memories' when scoped by filters).
    partial: bool = False
    read_first: str = "the newest references"

    @property
    def capped(self) -> bool:
        return len(self.nodes) < self.total_nodes

    def summary(self) -> str:
        noun = "node" if self.total_nodes == 1 else "nodes"
        edges = "reference" if self.total_edges == 1 else "references"
        if self.capped or self.partial:
            if self.centre:
                order = "nearest first"
            elif self.partial:
                order = f"{self.read_first}' largest clusters first, most connected within"
            else:
                order = "largest clusters first, most connected within"
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

    def table(self) -> list["TableRow"]:
        """Each node drawn with the nodes it references and those referencing it."""
        by_key = {node.key: node for node in self.nodes}
        rows = {node.key: TableRow(node) for node in self.nodes}
        for edge in self.edges:
            rows[edge.source].references.append((by_key[edge.target], edge.cross_tier))
            rows[edge.target].cited_by.append((by_key[edge.source], edge.cross_tier))
        return list(rows.values())

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


def _adjacency(edges) -> dict[int, list[int]]:
    """The nodes at the other ends of each node's edges (sorted slices of one list of both
    ends took a third longer to build and read)."""
    neighbours = defaultdict(list)
    for source, end in edges:
        neighbours[source].append(end)
        neighbours[end].append(source)
    return neighbours


def _components(nodes, neighbours: dict[int, list[int]]) -> list[list[int]]:
    """The connected components of `nodes`, largest first, then by smallest node; a
    component's nodes in no particular order."""
    seen, components = set(), []
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        component = [start]
        for node in component:  # grows as it is read: each node's unseen neighbours join it
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    component.append(other)
        components.append(component)
    components.sort(key=lambda component: (-len(component), min(component)))
    return components


class _Wiring:
    """The graph of some links as integers: a memory is its id, a dangling target a negative
    number (-1 the first met, -2 the next), so a store's worth of links is counted and joined
    up without building a string or an object per link."""

    def __init__(self, rows):
        """`rows` start with (source, target, to), in reference order (see _LINKS)."""
        numbers: dict[str, int] = {}
        # One edge per (source, end), in the order first met.
        self.edges: dict[tuple[int, int], None] = dict.fromkeys(
            (
                row[0],
                row[2] if row[2] is not None else numbers.setdefault(row[1], -len(numbers) - 1),
            )
            for row in rows
        )
        self.text = {number: target for target, number in numbers.items()}
        # A node's degree is how many other ends it has: each edge counts at both ends, and
        # a memory citing itself once.
        self.degrees = Counter(map(itemgetter(0), self.edges))
        self.degrees.update(map(itemgetter(1), self.edges))
        for source in [source for source, end in self.edges if source == end]:
            self.degrees[source] -= 1

    @cached_property
    def neighbours(self) -> dict[int, list[int]]:
        return _adjacency(self.edges)

    def degree(self, node: int) -> int:
        return self.degrees[node]

    def most_connected_first(self, nodes: list[int]) -> list[int]:
        degrees = self.degrees
        return sorted(nodes, key=lambda node: (-degrees[node], node))

    def best_first(self, start: int, budget: int) -> list[int]:
        """Up to `budget` nodes connected to `start`, the most connected reached first (the
        heap's order alone decides which: the order neighbours are met in does not)."""
        degrees, neighbours, kept, seen = self.degrees, self.neighbours, [], {start}
        heap = [(-degrees[start], start)]
        while heap and len(kept) < budget:
            _, node = heapq.heappop(heap)
            kept.append(node)
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    heapq.heappush(heap, (-degrees[other], other))
        return kept

    def hub(self, component: list[int]) -> int:
        """The most connected node of `component`, the smallest of those tied."""
        most = max(map(self.degrees.__getitem__, component))
        return min(node for node in component if self.degrees[node] == most)

    def graph(self, kept: list[int], now: dt.datetime, pieces=None, **fields) -> "Graph":
        """The graph drawn of the `kept` nodes and the edges between them. `pieces`: the
        connected pieces they make, largest first, when the caller knows them (else found
        here)."""
        chosen = set(kept)
        drawn = [(source, end) for source, end in self.edges if source in chosen and end in chosen]
        if pieces is None:
            pieces = _components(kept, _adjacency(drawn))
        cluster = {node: number for number, piece in enumerate(pieces) for node in piece}
        memories = _memories([node for node in kept if node > 0], now)
        page = reverse("memories:detail", args=[NAME_SLOT])
        degrees, text = self.degrees, self.text
        nodes = {}
        held = reach.current()
        for node in kept:
            if node > 0 and (row := memories.get(node)) is not None and not held.sees(row[-1]):
                # A memory past the caller's grants: a reference into it is drawn, never its
                # name, tier or anything else of it.
                nodes[node] = Node(
                    f"x{node}", OUTSIDE, OUTSIDE_LABEL, degrees[node], cluster[node], node
                )
            elif node < 0:
                target = text[node]
                nodes[node] = Node(
                    "t" + target, target_kind(target), target, degrees[node], cluster[node]
                )
            elif (row := memories.get(node)) is None:  # deleted since its references were read
                nodes[node] = Node(f"m{node}", MEMORY, "", degrees[node], cluster[node], node)
            else:
                _, name, project, description, load, priority, read_count, expired, _tier = row
                nodes[node] = Node(
                    f"m{node}",
                    MEMORY,
                    name,
                    degrees[node],
                    cluster[node],
                    node,
                    project,
                    description,
                    load,
                    priority,
                    read_count,
                    bool(expired),  # NULL when it has no expiry
                    memory_url(page, name, project),
                )
        edges = []
        for source, end in drawn:
            cited, citing = nodes[end], nodes[source]
            edges.append(Edge(citing.key, cited.key, end > 0 and cited.project != citing.project))
        return Graph(
            nodes=list(nodes.values()),
            edges=edges,
            total_nodes=len(self.degrees),
            total_edges=len(self.edges),
            **fields,
        )


# What a memory node shows, its expiry compared in the statement. Written out, as _LINKS is:
# the ORM's compiling the same statement, and its converters (a parsed datetime for each
# expiry), cost more than the fill's own work (bench/results/2026-12-01-graph-6).
_MEMORIES = """
SELECT m.id, m.name, p.name, m.description, m.load, m.priority, m.read_count,
    m.expires_at <= %s, m.tier
FROM memories_memory m
LEFT JOIN projects_project p ON p.id = m.project_id
WHERE m.id IN ({ids})
"""


def _memories(memory_ids: list[int], now: dt.datetime) -> dict[int, tuple]:
    """What the nodes show of these memories (one query): id -> (id, name, project,
    description, load, priority, read count, expired, tier)."""
    ids, params = engine.of(connection).statements.values(memory_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            _MEMORIES.format(ids=ids),
            [db_time(now), *params],
        )
        return {row[0]: row for row in cursor.fetchall()}


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
    clusters are kept, largest first; the cluster that does not fit is entered at its most
    connected node and followed outwards, the most connected first, so what is drawn stays
    connected."""
    now = now or timezone.now()
    if filters is not None and filters.active:
        read = _scope_links(filters, now, cap)
    else:
        read = _newest_links(now, cap)
    wiring = _Wiring(read.rows)
    pieces, room = [], cap  # the components drawn, whole or in part
    for component in _components(wiring.degrees, wiring.neighbours):
        if room <= 0:
            break
        if len(component) <= room:
            pieces.append(wiring.most_connected_first(component))
        else:  # connected: each node is kept after the kept node it was reached from
            pieces.append(wiring.best_first(wiring.hub(component), room))
        room -= len(pieces[-1])
    kept = [node for piece in pieces for node in piece]
    graph = wiring.graph(
        kept, now, pieces, cap=cap, partial=not read.whole, read_first=read.read_first
    )
    if read.scope is None:
        connected = len(wiring.degrees) - len(wiring.text)  # the memories drawn or not
        scope_size = scope_queryset(None, now).count() if read.whole else 0
    else:
        drawn = [node.memory_id for node in graph.nodes if node.memory_id is not None]
        admitted = read.scope
        if not read.whole:  # a memory drawn may be in the scope beyond the part read
            admitted = admitted | _also_in_scope(filters, now, set(drawn) - read.scope)
        for node in graph.nodes:
            if node.memory_id is not None:
                node.in_scope = node.memory_id in admitted
        connected = sum(1 for node in wiring.degrees if node in read.scope)
        scope_size = len(read.scope)
    if read.whole:
        graph.isolated = scope_size - connected
    return graph


@dataclass
class _Read:
    """The links a store-wide graph is drawn from, in reference order."""

    rows: list
    whole: bool  # every link of the scope, or of the store
    scope: set[int] | None = None  # the scope's memories read (None: unscoped)
    read_first: str = "the newest references"  # what a partial read was drawn from


def _newest_links(now, cap: int) -> _Read:
    """The store's newest references, a chunk at a time, until they reach `cap` nodes (every
    reference when there are no more: the read is then whole).

    What is read follows the cap, not the store: a store's every reference took seconds at
    1,000,000 memories (bench/results/2026-12-04-figures-from-comments).
    """
    chunk = max(LINK_CHUNK, 2 * cap)
    rows, before, ends = [], None, set()
    while True:
        found, _ = _link_rows(None, now, before=before, limit=chunk)
        rows += found
        if len(found) < chunk:
            whole = True
            break
        before = found[-1][-1]
        ends.update(map(itemgetter(0), found))
        ends.update(row[2] or row[1] for row in found)  # the memory named, else the target
        if len(ends) >= cap:
            whole = False
            break
    rows.reverse()
    return _Read(rows, whole)


def _scope_links(filters: MemoryFilters, now, cap: int) -> _Read:
    """The references made by or naming the scope's memories, read a chunk of the scope at a
    time, newest memories first, until they reach `cap` nodes (whole when the scope is read
    to its end).

    A scope's links were once one statement over every reference of the scope and every name
    in it, sorted for the newest: about a second for a project's at 1,000,000 memories
    (bench/results/2026-12-04-figures-from-comments). Walking the
    scope costs what the cap asks, however large the scope and the store.
    """
    found: dict[int, tuple] = {}  # reference id: its row
    scope: set[int] = set()
    ends: set = set()
    chunks = _scope_chunks(filters, now, first=min(SCOPE_CHUNK, cap))
    frontier, last = next(chunks)
    while True:
        scope.update(frontier)
        for row in _hop(frontier):
            if row[3] not in found:
                found[row[3]] = row
                ends.add(row[0])
                ends.add(row[1] if row[2] is None else row[2])
        if last or len(ends) >= cap:
            break
        # The next chunk: the memories the nodes still wanted take, at the rate met so far
        # and a quarter over (doubling each chunk read a third more than needed).
        rate = len(ends) / len(scope)
        frontier, last = chunks.send((cap - len(ends)) * 1.25 / rate if rate else None)
    rows = sorted(found.values(), key=itemgetter(3))
    return _Read(rows, last, scope, read_first="the newest memories")


def _scope_chunks(filters: MemoryFilters, now, *, first: int = SCOPE_CHUNK):
    """The scope's memories as (id: name, whether the last) chunks, newest first: `first`
    memories, then as many as the caller sends that it wants (None: as many as a chunk holds).

    A scope of few memories is looked up at once through the filters' own indexes. A larger
    one is walked down the primary key, each row tested (the listing's walk): a chunk then
    reads its own rows over the scope's share of the store. (Walked in index order instead,
    down the tier's index for a tier, a project's graph took longer, the expired several
    times as long: bench/results/2026-12-04-figures-from-comments.)
    """
    base = Memory.objects.order_by()
    size = tallies.count(filters, now)
    if size is None and tallies.more_tagged_than(filters, SCOPE_LOOKUP):
        size = SCOPE_LOOKUP + 1
    elif size is None and not filters.tag:  # counted in the index of its condition
        size = filters.apply(base, now, sparse=True)[: SCOPE_LOOKUP + 1].count()
    # Left unknown (a tag's memories, gathered whole either way), the lookup tells.
    if size is None or size <= SCOPE_LOOKUP:
        looked_up = filters.apply(base, now, sparse=True).values_list("id", "name")
        rows = list(looked_up[: SCOPE_LOOKUP + 1])
        if len(rows) <= SCOPE_LOOKUP:
            yield dict(rows), True
            return
    walked = filters.apply(base, now, walk_order=True)
    tier = filters.tier_key()
    if tier is not None and engine.of(connection).statements.KEYS_HOLD_ID_ORDER:
        # The tier's memories in id order are then a range of the project index: webdev's
        # tagged infra in about a quarter of the time on SQLite. (Told the same,
        # PostgreSQL's planner took the project and tier as rare together and sorted every
        # match, slower than walking the primary key. Both:
        # bench/results/2026-12-04-figures-from-comments.)
        walked = walked.filter(project_id=tier or None)
    walked = walked.order_by("-id").values_list("id", "name")
    before, chunk, read = None, first, 0
    while True:
        rows = list((walked if before is None else walked.filter(id__lt=before))[: chunk + 1])
        last = len(rows) <= chunk
        wanted = yield dict(rows[:chunk]), last
        if last:
            return
        before, read = rows[chunk - 1][0], read + chunk
        # At most twice what was read: the newest memories are cited less than the rest, and
        # their rate alone would ask for too many.
        chunk = min(2 * read, SCOPE_CHUNK_MOST, SCOPE_CHUNK_MOST if wanted is None else wanted)
        chunk = max(int(chunk), first)


def newest_in_scope(filters: MemoryFilters, now, most: int) -> tuple[dict[int, str], bool]:
    """The scope's newest `most` memories or so (id: name; all of a scope of SCOPE_LOOKUP or
    fewer) and whether they are all the scope holds."""
    chunks = _scope_chunks(filters, now, first=most)
    memories, whole = next(chunks)
    chunks.close()
    return memories, whole


def dangling_links(memory_ids) -> list[Link]:
    """The references these memories make that name no memory of their band (one query)."""
    if not memory_ids:
        return []
    ids, params = engine.of(connection).statements.values(memory_ids)
    sql = _LINKS.format(flags="", where=f"WHERE r.memory_id IN ({ids}) AND d.id IS NULL")
    with connection.cursor() as cursor:
        cursor.execute(sql + "ORDER BY r.id", params)
        return [Link(source, target, None) for source, target, _ in cursor.fetchall()]


def _also_in_scope(filters: MemoryFilters, now, memory_ids: set[int]) -> set[int]:
    """Which of these memories, met at the far end of the scope's links, the filters admit."""
    if not memory_ids:
        return set()
    # One parameter for the ids: a thousand of them bound one by one cost more
    # (bench/results/2026-12-04-figures-from-comments).
    base = Memory.objects.order_by().filter(id__in=id_set(memory_ids))
    return set(filters.apply(base, now, walk_order=True).values_list("id", flat=True))


def _hop(frontier: dict[int, str]) -> list[tuple]:
    """The references made by the frontier's memories or naming them (one query), as rows of
    Link's fields."""
    if not frontier:
        return []
    values = engine.of(connection).statements.values
    ids, ids_params = values(frontier)
    names, names_params = values(sorted(set(frontier.values())))
    # Each side looked up in its own index and resolved there: PostgreSQL's planner read the
    # two tables whole for the OR of the two conditions, and the references whole to join the
    # ids of both (bench/results/2026-12-04-figures-from-comments).
    sql = (
        _LINKS.format(flags=", r.id", where=f"WHERE r.memory_id IN ({ids})")
        + " UNION "
        + _LINKS.format(flags=", r.id", where=f"WHERE r.target IN ({names})")
        + " ORDER BY 4"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*ids_params, *names_params])
        found = cursor.fetchall()
    return [row for row in found if row[0] in frontier or row[2] in frontier]


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
    hops = {memory.id: 0}  # memory id -> hops from the centre
    target_hops: dict[str, int] = {}  # dangling target -> hops
    frontier = {memory.id: memory.name}
    found: dict[tuple[int, str], Link] = {}
    partial = False
    for hop in range(1, depth + 1):
        reached = []
        for link in map(Link._make, _hop(frontier)):
            found[(link.source, link.target)] = link
            for node in (link.source, link.to):
                if node is not None and node not in hops:
                    hops[node] = hop
                    reached.append(node)
            if link.to is None:
                target_hops.setdefault(link.target, hop)
        if hop == depth or not reached:
            break
        if len(hops) + len(target_hops) > cap:
            partial = True
            break
        frontier = dict(Memory.objects.filter(id__in=reached).values_list("id", "name"))
    wiring = _Wiring(list(found.values()))

    def hop_of(node: int) -> int:
        return hops[node] if node > 0 else target_hops[wiring.text[node]]

    ranked = sorted(
        set(wiring.degrees) | {memory.id},
        key=lambda node: (hop_of(node), -wiring.degree(node), node),
    )
    graph = wiring.graph(ranked[:cap], now, cap=cap, centre=f"m{memory.id}", depth=depth)
    graph.partial = partial
    graph.total_nodes = max(graph.total_nodes, 1)
    for node in graph.nodes:
        node.depth = hops[node.memory_id] if node.memory_id else target_hops[node.label]
    graph.nodes.sort(key=lambda node: (node.depth, -node.degree, node.key))
    return graph
