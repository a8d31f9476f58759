"""The graphs' whole answers pinned on one store: several clusters, a cap cutting one, scoped
filters, a partial read, isolated memories and neighbourhoods. Any change of a node, an edge,
their order or a count fails here; graph_pinned.json holds the answers (memory ids written as
name@project, the same on every engine).

The pinned answers were read by hand against the store below: cluster 0 is deploy-host's
(11 nodes), 1 the a-chain (5), 2 lone-citer and its targets (4), then three pairs; lonely,
quiet, idle and infra's shared are isolated."""

import json
import re
from pathlib import Path

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.reads import graph
from memories.reads.filters import MemoryFilters

PINNED = json.loads((Path(__file__).with_name("graph_pinned.json")).read_text())


@pytest.fixture
def store(write, project, other_project, expire, reads):
    """Written in a fixed order, so that ids and reference order (which break ties) are the
    same on every engine."""
    reads(write("deploy-host", load="inline", body="host-7", priority=1).memory, 12)
    write("runbook", references=["deploy-host", "https://wiki.example.com/deploy", "write-me"])
    expire(write("old-note", references=["deploy-host", "docs/runbook.md", "JIRA-1"]).memory)
    write("stack", project="webdev", tags=["infra"], references=["deploy-host", "runbook"])
    write("ci", project="infra", tags=["infra"], load="search", references=["deploy-host", "#12"])
    write("ports", project="webdev", references=["stack"])
    write("a1", references=["a2"])
    write("a2", references=["a3"])
    write("a3", references=["a4", "a1"])
    write("a4", references=["a5"])
    write("a5", references=["a5"])
    write("pair-a", project="infra", references=["pair-b"])
    write("pair-b", project="infra", references=["pair-a"])
    write("lone-citer", references=["/etc/hosts", "mailto:ops@example.com", "gh:org/repo#1"])
    write("shared", project="webdev")
    write("shared", project="infra")
    write("g-shared", references=["shared"])
    write("w-shared", project="webdev", tags=["infra"], references=["shared"])
    write("lonely")
    write("quiet", project="webdev", tags=["infra"])
    write("idle", project="infra")
    Memory.objects.filter(name="pair-b").update(references=["pair-a", "pair-a"])  # past doors
    return {f"m{m.id}": f"{m.name}@{m.project_name or ''}" for m in Memory.objects.all()}


def pinned_form(data: dict, names: dict[str, str]) -> dict:
    """The graph's dict with each memory's "m<id>" written as its name@project."""

    def spell(key):
        return re.sub(r"m\d+", lambda found: names.get(found.group(), found.group()), key)

    for node in data["nodes"]:
        node["id"] = spell(node["id"])
    for edge in data["edges"]:
        edge["id"], edge["source"], edge["target"] = map(
            spell, (edge["id"], edge["source"], edge["target"])
        )
    if data["centre"]:
        data["centre"] = spell(data["centre"])
    return data


def answers(monkeypatch) -> dict:
    now = timezone.now()
    found = {
        "whole": graph.store_graph(now=now),
        "cap 14 cuts the a-chain": graph.store_graph(cap=14, now=now),
        "cap 1": graph.store_graph(cap=1, now=now),
        "webdev": graph.store_graph(MemoryFilters(project="webdev"), now=now),
        "global, cap 5": graph.store_graph(MemoryFilters(project=None), cap=5, now=now),
        "tag infra": graph.store_graph(MemoryFilters(tag="infra"), now=now),
        "infra and tag infra": graph.store_graph(
            MemoryFilters(project="infra", tag="infra"), now=now
        ),
        "none can pass": graph.store_graph(MemoryFilters(unverified="385670w"), now=now),
    }
    host = Memory.objects.get(name="deploy-host")
    a1 = Memory.objects.get(name="a1")
    stack = Memory.objects.get(name="stack")
    found |= {
        "deploy-host, depth 1": graph.neighbourhood(host, 1, now=now),
        "deploy-host, depth 2, cap 4": graph.neighbourhood(host, 2, cap=4, now=now),
        "a1, depth 3": graph.neighbourhood(a1, 3, now=now),
        "stack, depth 2": graph.neighbourhood(stack, 2, now=now),
    }
    monkeypatch.setattr(graph, "LINK_CHUNK", 4)
    found["newest references, cap 3"] = graph.store_graph(cap=3, now=now)
    monkeypatch.setattr(graph, "SCOPE_LOOKUP", 1)  # webdev's 5 memories walked, 1 then 2
    monkeypatch.setattr(graph, "SCOPE_CHUNK", 1)
    found["newest memories, webdev, cap 2"] = graph.store_graph(
        MemoryFilters(project="webdev"), cap=2, now=now
    )
    return {label: g.to_dict() for label, g in found.items()}


def test_the_graphs_answers_are_pinned(store, monkeypatch):
    found = {label: pinned_form(data, store) for label, data in answers(monkeypatch).items()}
    assert list(found) == list(PINNED)
    for label, data in found.items():
        assert data == PINNED[label], label
