"""Backlink graphs: resolution by band, node kinds and attributes, filters, the cap, depth."""

import pytest

from memories.models import Memory
from memories.reads import backlinks, graph
from memories.reads.filters import MemoryFilters
from memories.rules.errors import InvalidField
from memories.writes import doors


def by_label(g: graph.Graph) -> dict[str, graph.Node]:
    return {node.label: node for node in g.nodes}


def edge_pairs(g: graph.Graph) -> set[tuple[str, str]]:
    labels = {node.key: node.label for node in g.nodes}
    return {(labels[e.source], labels[e.target]) for e in g.edges}


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("deploy-host", "name"),
        ("README.md", "name"),
        ("https://wiki.example.com/ops/deploy", "url"),
        ("mailto:ops@example.com", "url"),
        ("/etc/nginx/app.conf", "path"),
        ("docs/runbook.md", "path"),
        ("~/notes.txt", "path"),
        ("C:\\deploy\\run.ps1", "id"),
        ("JIRA-4312", "id"),
        ("#12", "id"),
        ("4312", "id"),
        ("gh:org/repo#1", "id"),
        ("123e4567-e89b-12d3-a456-426614174000", "id"),
        ("a note with spaces", "id"),
    ],
)
def test_target_kinds(target, kind):
    assert graph.target_kind(target) == kind


def test_store_graph_nodes_edges_and_attributes(write, project, expire, reads):
    host = write("deploy-host", load="inline", body="host-7").memory
    reads(host, 12)
    write("runbook", references=["deploy-host", "https://wiki.example.com/x", "write-me-later"])
    expire(write("old-note", references=["deploy-host", "docs/runbook.md", "JIRA-1"]).memory)
    write("stack", project="webdev", references=["deploy-host"])
    write("lonely")
    g = graph.store_graph()
    nodes = by_label(g)
    assert set(nodes) == {
        "deploy-host",
        "runbook",
        "old-note",
        "stack",
        "https://wiki.example.com/x",
        "write-me-later",
        "docs/runbook.md",
        "JIRA-1",
    }
    assert nodes["deploy-host"].kind == "memory"
    assert nodes["deploy-host"].load == "inline"
    assert nodes["deploy-host"].read_count == 12
    assert nodes["deploy-host"].degree == 3
    assert nodes["old-note"].expired and not nodes["runbook"].expired
    assert nodes["stack"].tier == "webdev" and nodes["runbook"].tier == "global"
    assert [nodes[t].kind for t in ("https://wiki.example.com/x", "write-me-later")] == [
        "url",
        "name",
    ]
    assert nodes["docs/runbook.md"].kind == "path" and nodes["JIRA-1"].kind == "id"
    cross = {(e.source, e.target): e.cross_tier for e in g.edges}
    assert cross[(nodes["stack"].key, nodes["deploy-host"].key)] is True
    assert cross[(nodes["runbook"].key, nodes["deploy-host"].key)] is False
    assert g.isolated == 1  # lonely
    assert g.total_nodes == 8 and g.total_edges == 7 and not g.capped
    assert g.summary() == (
        "8 nodes and 7 references; 1 memory with no reference in or out left out."
    )


def test_resolution_follows_the_citing_memorys_band(write, project, other_project):
    write("only-infra", project="infra")
    write("shared", project="webdev")
    write("shared", project="infra")
    write("cites-infra-from-webdev", project="webdev", references=["only-infra"])
    write("global-cites-unique", references=["only-infra"])
    write("global-cites-ambiguous", references=["shared"])
    write("webdev-cites-own", project="webdev", references=["shared"])
    g = graph.store_graph()
    key = {m.name + "@" + (m.project_name or ""): f"m{m.id}" for m in Memory.objects.all()}
    edges = {(e.source, e.target): e.cross_tier for e in g.edges}
    # Another project's memory is not in webdev's band: the reference dangles.
    assert (key["cites-infra-from-webdev@webdev"], "tonly-infra") in edges
    # A global memory citing a name one project holds means that project's memory.
    assert edges[(key["global-cites-unique@"], key["only-infra@infra"])] is True
    # ... and a name several projects hold names none of them.
    assert (key["global-cites-ambiguous@"], "tshared") in edges
    assert edges[(key["webdev-cites-own@webdev"], key["shared@webdev"])] is False
    assert {n.label for n in g.nodes if n.kind == "name"} == {"only-infra", "shared"}


def test_links_resolve_as_a_memorys_own_references_do(write, project, other_project):
    """The graph resolves every reference in one join; the memory page resolves one memory's
    in Python (backlinks.resolve_references). Both must name the same memory."""
    write("global-note")
    write("only-infra", project="infra")
    write("shared", project="webdev")
    write("shared", project="infra")
    write("own", project="webdev")
    targets = ["global-note", "only-infra", "shared", "own", "nobody"]
    citing = [
        write("g-cites", references=[*targets, "g-cites"]).memory,
        write("w-cites", project="webdev", references=[*targets, "w-cites"]).memory,
        write("i-cites", project="infra", references=targets).memory,
    ]
    for found in (graph.links(), graph.links(MemoryFilters(project="webdev"))):
        resolved = {(link.source, link.target): link.to for link in found.links}
        for memory in citing:
            if not found.in_scope(memory.id):
                continue
            for reference in backlinks.resolve_references(memory):
                expected = reference.memory.id if reference.memory else None
                assert resolved[(memory.id, reference.target)] == expected, reference.target
    resolved = {(link.source, link.target): link.to for link in graph.links().links}
    assert sum(to is None for to in resolved.values()) == 6  # both kinds are checked
    assert resolved[(citing[0].id, "g-cites")] == citing[0].id


def test_reciprocal_self_and_repeated_references(write):
    write("a", references=["b", "a"])
    write("b", references=["a"])
    Memory.objects.filter(name="b").update(references=["a", "a"])  # past the doors
    g = graph.store_graph()
    nodes = by_label(g)
    assert g.total_edges == 3 and len(g.edges) == 3
    # a: b at the end of a -> b and of b -> a, and itself once; b: a twice.
    assert nodes["a"].degree == 3 and nodes["b"].degree == 2
    assert edge_pairs(g) == {("a", "b"), ("a", "a"), ("b", "a")}


def test_tier_filter_keeps_neighbours_outside_the_tier(write, project):
    write("deploy-host")
    write("stack", project="webdev", references=["deploy-host"])
    write("unrelated", references=["deploy-host"])
    write("other", project="webdev", references=["https://example.com"])
    g = graph.store_graph(MemoryFilters(project="webdev"))
    nodes = by_label(g)
    assert set(nodes) == {"deploy-host", "stack", "other", "https://example.com"}
    assert nodes["deploy-host"].in_scope is False and nodes["stack"].in_scope is True
    g = graph.store_graph(MemoryFilters(project=None))
    assert set(by_label(g)) == {"deploy-host", "stack", "unrelated"}


def test_tag_filter(write):
    write("a", tags=["infra"], references=["b"])
    write("b")
    write("c", references=["d"])
    write("d")
    assert set(by_label(graph.store_graph(MemoryFilters(tag="infra")))) == {"a", "b"}


def test_cap_keeps_the_largest_cluster_whole_and_says_so(write):
    write("hub")
    for number in range(6):
        write(f"spoke{number}", references=["hub"])
    write("pair-a", references=["pair-b"])
    write("pair-b")
    g = graph.store_graph(cap=7)
    assert set(by_label(g)) == {"hub", *(f"spoke{n}" for n in range(6))}
    assert g.capped and g.total_nodes == 9
    assert g.summary().startswith("Showing 7 of 9 nodes (largest clusters first")
    assert g.to_dict()["capped"] is True and len(g.to_dict()["edges"]) == 6


def test_store_graph_queries_do_not_grow_with_the_store(write, project, django_assert_num_queries):
    for number in range(30):
        write(
            f"m{number}",
            project="webdev" if number % 2 else None,
            tags=["x"],
            references=[f"m{number - 1}", "https://x.example"],
        )
    with django_assert_num_queries(3):
        graph.store_graph()
    # The tier is looked up once, then the tag's tallies, the scope, its links and the nodes.
    with django_assert_num_queries(5):
        graph.store_graph(MemoryFilters(project="webdev", tag="x"))


def test_neighbourhood_depths(write, project):
    write("a", references=["b", "https://a.example"])
    write("b", references=["c"])
    write("c", references=["d"])
    write("d")
    write("cites-a", references=["a"])
    write("cites-cites-a", references=["cites-a"])
    a = Memory.objects.get(name="a")
    one = graph.neighbourhood(a, 1)
    assert {n.label: n.depth for n in one.nodes} == {
        "a": 0,
        "b": 1,
        "https://a.example": 1,
        "cites-a": 1,
    }
    assert one.centre == f"m{a.id}" and one.nodes[0].label == "a"
    two = graph.neighbourhood(a, 2)
    assert {n.label for n in two.nodes if n.depth == 2} == {"c", "cites-cites-a"}
    three = graph.neighbourhood(a, 3)
    assert {n.label for n in three.nodes if n.depth == 3} == {"d"}
    assert ("b", "c") in edge_pairs(three) and ("cites-cites-a", "cites-a") in edge_pairs(three)


def test_neighbourhood_of_a_memory_with_no_references(write):
    alone = write("alone").memory
    g = graph.neighbourhood(alone, 2)
    assert [n.label for n in g.nodes] == ["alone"] and g.edges == []
    assert g.summary() == "1 node and 0 references."


def test_neighbourhood_follows_bands(write, project, other_project):
    write("shared", project="webdev")
    write("shared", project="infra")
    write("webdev-cites", project="webdev", references=["shared"])
    write("infra-cites", project="infra", references=["shared"])
    webdev_shared = Memory.objects.get(name="shared", project__name="webdev")
    g = graph.neighbourhood(webdev_shared, 1)
    assert {n.label for n in g.nodes} == {"shared", "webdev-cites"}


def test_neighbourhood_cap_keeps_the_nearest(write):
    write("centre", references=[f"n{i}" for i in range(5)])
    for number in range(5):
        write(f"n{number}", references=[f"far{number}"])
    centre = Memory.objects.get(name="centre")
    g = graph.neighbourhood(centre, 2, cap=6)
    assert {n.depth for n in g.nodes} == {0, 1} and len(g.nodes) == 6
    assert g.capped


def test_neighbourhood_queries_per_hop(write, django_assert_num_queries):
    write("a", references=["b"])
    write("b", references=["c"])
    write("c", references=["d"])
    write("d")
    a = Memory.objects.get(name="a")
    with django_assert_num_queries(2):
        graph.neighbourhood(a, 1)
    with django_assert_num_queries(6):
        graph.neighbourhood(a, 3)


@pytest.mark.parametrize("value", ["0", "4", "two", "-1"])
def test_depth_is_one_to_three(value):
    with pytest.raises(InvalidField):
        graph.depth_value(value)


@pytest.mark.parametrize("value", ["0", "10001", "many"])
def test_cap_is_bounded(value):
    with pytest.raises(InvalidField):
        graph.cap_value(value)


def test_defaults():
    assert graph.depth_value(None) == 1 and graph.depth_value("3") == 3
    assert graph.cap_value("") == graph.DEFAULT_NODE_CAP and graph.cap_value("20") == 20


def test_to_dict_shapes(write, project):
    write("deploy-host")
    write("stack", project="webdev", references=["deploy-host", "/etc/hosts"])
    data = graph.store_graph().to_dict()
    memory = next(n for n in data["nodes"] if n["label"] == "stack")
    assert memory == {
        "id": memory["id"],
        "kind": "memory",
        "label": "stack",
        "degree": 2,
        "cluster": 0,
        "name": "stack",
        "project": "webdev",
        "tier": "webdev",
        "url": "/memories/stack/?project=webdev",
        "description": "about stack",
        "load": "index",
        "priority": 5,
        "read_count": 0,
        "expired": False,
        "in_scope": True,
    }
    target = next(n for n in data["nodes"] if n["kind"] == "path")
    assert target == {
        "id": "t/etc/hosts",
        "kind": "path",
        "label": "/etc/hosts",
        "degree": 1,
        "cluster": 0,
        "target": "/etc/hosts",
    }
    assert {e["cross_tier"] for e in data["edges"]} == {True, False}
    assert data["summary"] == "3 nodes and 2 references."


def test_the_global_tier_is_a_filter():
    assert MemoryFilters(project=None).active is True
    assert MemoryFilters(tag="x").active is True
    assert MemoryFilters().active is False


def test_a_cluster_past_the_cap_is_followed_from_its_hub_and_stays_connected(write):
    write("hub")
    write("hub2")
    write("bridge", references=["hub", "hub2"])
    for number in range(5):
        write(f"spoke{number}", references=["hub"])
    for number in range(3):
        write(f"other{number}", references=["hub2"])
    g = graph.store_graph(cap=4)
    assert [n.label for n in g.nodes][:3] == ["hub", "bridge", "hub2"]
    assert len(g.nodes) == 4 and len(g.edges) == 3  # a tree: every node drawn is connected


def test_filters_no_memory_can_pass_give_an_empty_graph(write):
    write("a", references=["b"])
    g = graph.store_graph(MemoryFilters(unverified="385670w"))
    assert g.nodes == [] and g.total_nodes == 0 and g.isolated == 0


def test_nodes_carry_their_drawn_cluster_largest_first(write):
    write("hub")
    for number in range(3):
        write(f"spoke{number}", references=["hub"])
    write("pair-a", references=["pair-b"])
    write("pair-b")
    clusters = {n.label: n.cluster for n in graph.store_graph().nodes}
    assert {clusters[name] for name in ("hub", "spoke0", "spoke1", "spoke2")} == {0}
    assert clusters["pair-a"] == clusters["pair-b"] == 1


def test_store_graph_reads_the_newest_references_up_to_the_cap(
    write, monkeypatch, django_assert_num_queries
):
    for number in range(10):
        write(f"a{number}", references=[f"b{number}"])
        write(f"b{number}")
    write("alone")
    monkeypatch.setattr(graph, "LINK_CHUNK", 3)
    with django_assert_num_queries(2):  # one chunk of 4 references reaches the cap; the nodes
        g = graph.store_graph(cap=2)
    assert g.partial and g.capped and len(g.nodes) == 2
    assert set(by_label(g)) <= {f"{side}{n}" for side in "ab" for n in range(6, 10)}
    assert g.total_nodes == 8 and g.total_edges == 4 and g.isolated == 0
    assert g.summary() == (
        "Showing 2 of at least 8 nodes (the newest references' largest clusters first, most "
        "connected within) and 1 of 4 references."
    )
    whole = graph.store_graph(cap=30)  # chunks of 60 references: every one read at once
    assert not whole.partial and whole.total_nodes == 20 and whole.isolated == 1


def test_store_graph_reads_chunks_until_the_cap_is_reached(
    write, monkeypatch, django_assert_num_queries
):
    names = ["a", "b", "c", "d"]
    for name in names:  # 12 references among 4 memories
        write(name, references=[other for other in names if other != name])
    monkeypatch.setattr(graph, "LINK_CHUNK", 1)
    with django_assert_num_queries(4):  # 10 references, 2 more, the nodes, the count
        g = graph.store_graph(cap=5)
    assert not g.partial and g.total_nodes == 4 and g.total_edges == 12


def test_a_scope_too_large_to_look_up_is_walked_newest_first(
    write, project, monkeypatch, django_assert_num_queries
):
    write("elsewhere")
    write("old", project="webdev")
    write("older-citer", project="webdev", references=["elsewhere"])
    write("new", project="webdev", references=["old", "elsewhere"])
    monkeypatch.setattr(graph, "SCOPE_LOOKUP", 1)
    monkeypatch.setattr(graph, "SCOPE_CHUNK", 1)
    # The tier, its tally, the newest memory of the scope, its links, the nodes, and which
    # of them the part walked did not reach are in the scope all the same.
    with django_assert_num_queries(6):
        g = graph.store_graph(MemoryFilters(project="webdev"), cap=3)
    assert g.partial and len(g.nodes) == 3 and g.total_nodes == 3 and g.isolated == 0
    nodes = by_label(g)
    assert set(nodes) == {"new", "old", "elsewhere"}
    assert nodes["old"].in_scope is True and nodes["elsewhere"].in_scope is False
    assert g.summary() == (
        "Showing 3 of at least 3 nodes (the newest memories' largest clusters first, most "
        "connected within) and 2 of 2 references."
    )
    whole = graph.store_graph(MemoryFilters(project="webdev"), cap=30)  # walked 1, 2, then 4
    assert not whole.partial and whole.total_nodes == 4 and whole.total_edges == 3
    assert whole.isolated == 0 and by_label(whole)["older-citer"].in_scope is True
    monkeypatch.setattr(graph, "SCOPE_CHUNK", 500)
    one = graph.store_graph(MemoryFilters(project="webdev"), cap=1)  # the first chunk: the cap
    assert one.partial and one.total_nodes == 3 and [n.label for n in one.nodes] == ["new"]


def test_a_moved_memorys_references_resolve_in_its_new_band(write, project, other_project):
    """The graph reads the citing memory's band off its reference rows (their tier), which
    must follow the memory as it moves."""
    write("runbook", project="webdev")
    write("runbook", project="infra")
    citing = write("deploy", project="webdev", references=["runbook"]).memory
    key = {(m.name, m.project_name): f"m{m.id}" for m in Memory.objects.all()}
    edges = {(e.source, e.target) for e in graph.store_graph().edges}
    assert (f"m{citing.id}", key[("runbook", "webdev")]) in edges
    doors.move("deploy", project="webdev", to="infra")
    edges = {(e.source, e.target) for e in graph.store_graph().edges}
    assert (f"m{citing.id}", key[("runbook", "infra")]) in edges
    assert (f"m{citing.id}", key[("runbook", "webdev")]) not in edges
    doors.move("deploy", project="infra", to=None)
    # From the global tier, a name two projects hold names neither: it dangles.
    edges = {(e.source, e.target) for e in graph.store_graph().edges}
    assert edges == {(f"m{citing.id}", "trunbook")}


def test_a_memory_deleted_between_the_graphs_two_reads_is_drawn_blank(write, monkeypatch):
    """The nodes' attributes are read after the references: a memory deleted in between is
    still a node (its references were read), with nothing to show, not a failure."""
    write("runbook")
    gone = write("deploy", references=["runbook"]).memory
    newest_links = graph._newest_links

    def then_delete(*args):
        found = newest_links(*args)
        doors.delete("deploy")
        return found

    monkeypatch.setattr(graph, "_newest_links", then_delete)
    nodes = {node.key: node for node in graph.store_graph().nodes}
    assert nodes[f"m{gone.id}"].label == "" and nodes[f"m{gone.id}"].url == ""
    assert nodes[f"m{gone.id}"].to_dict()["name"] == ""
