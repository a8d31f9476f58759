"""The orphans (memories.models.Orphan): the memories referencing nothing that no reference
resolves to, kept by the engine's triggers as memories come, go, move, are renamed and change
their references, through the doors and past them; equal at each step to the orphans the
graph's links give, and their tally per tier (OrphanTally) to a count of them; checked by
`memory verify`, mended by `--rebuild`."""

from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import engine
from memories.models import Memory, Orphan, OrphanTally
from memories.reads import graph
from memories.writes import bulk, doors


def _in_step() -> set[str]:
    """The orphans' names, asserted equal to what the graph's links leave unlinked, their
    tally to a count of them per tier, and the engine's check clean."""
    cited = {link.to for link in graph.links().links if link.to is not None}
    expected = {
        (memory.id, memory.tier)
        for memory in Memory.objects.all()
        if not memory.references and memory.id not in cited
    }
    assert set(Orphan.objects.values_list("memory_id", "tier")) == expected
    per_tier = Counter(tier for _, tier in expected)
    assert dict(OrphanTally.objects.values_list("tier", "memories")) == dict(per_tier)
    assert engine.of(connection).index.check().ok
    return set(
        Memory.objects.filter(id__in=[i for i, _ in expected]).values_list("name", flat=True)
    )


def test_the_orphans_follow_each_write(write, project, other_project):
    write("alone")
    write("rules", references=["deploy"])
    assert _in_step() == {"alone"}
    write("deploy", project="webdev")
    # The global reference names webdev's memory, the name's one holder.
    assert _in_step() == {"alone"}
    write("deploy", project="infra")
    # Two projects hold it now: the global reference means neither.
    assert _in_step() == {"alone", "deploy"}
    write("notes", project="webdev", references=["deploy"])
    assert _in_step() == {"alone", "deploy"}  # infra's deploy is still nobody's
    infra_deploy = Memory.objects.get(name="deploy", project=other_project)
    assert infra_deploy.id in set(Orphan.objects.values_list("memory_id", flat=True))
    write("rules", references=[])
    assert _in_step() == {"alone", "deploy", "rules"}
    write("alone", references=["https://example.com/a"])
    assert "alone" not in _in_step()
    doors.move("notes", project="webdev", to="infra")
    # webdev's deploy lost its only citer; infra's gained one.
    orphans = set(Orphan.objects.values_list("memory_id", flat=True))
    assert Memory.objects.get(name="deploy", project=project).id in orphans
    assert infra_deploy.id not in orphans
    _in_step()
    doors.delete("notes", project="infra")
    assert _in_step() == {"deploy", "rules"}
    bulk.move([Memory.objects.get(name="rules").id], "infra")
    assert _in_step() == {"deploy", "rules"}
    assert OrphanTally.objects.get(tier=other_project.id).memories == 2


def test_writes_past_the_doors_keep_the_orphans(write, project):
    write("notes", project="webdev", references=["old"])
    write("old", project="webdev")
    write("other", project="webdev")
    assert _in_step() == {"other"}
    Memory.objects.filter(name="old").update(name="renamed")
    assert _in_step() == {"other", "renamed"}
    Memory.objects.filter(name="other").update(name="old")
    assert _in_step() == {"renamed"}
    Memory.objects.filter(project=project).update(project=None)
    assert _in_step() == {"renamed"}
    assert dict(OrphanTally.objects.values_list("tier", "memories")) == {0: 1}
    Memory.objects.filter(name="notes").delete()
    assert _in_step() == {"renamed", "old"}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda: Orphan.objects.all().delete(),
        lambda: OrphanTally.objects.update(memories=7),
        lambda: OrphanTally.objects.all().delete(),
    ],
    ids=["the orphans gone", "a tier's count", "the tally gone"],
)
def test_verify_finds_the_orphans_out_of_step_and_rebuild_mends_them(write, spoil):
    write("alone")
    write("notes", references=["deploy"])
    spoil()
    problems = engine.of(connection).index.check().problems
    assert any("memories_orphan" in problem for problem in problems)
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    assert _in_step() == {"alone"}
