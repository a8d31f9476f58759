"""The dangling tally (memories.models.DanglingTally): the references of each tier naming no
memory of their band, kept by the engine's triggers as memories come, go, move, are renamed
and change their references; equal at each step to the references the reads' rule finds
dangling (backlinks.dangling_references), and its sums per target and over the store
(DanglingTarget, DanglingTotal) to the tally's; checked by `memory verify`, mended by
`--rebuild`; and a dangling target's first citers, read in index order off the reference rows,
follow their priorities."""

from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import engine
from memories.models import DanglingTally, DanglingTarget, DanglingTotal, Memory
from memories.reads import hygiene
from memories.reads.backlinks import dangling_references
from memories.reads.filters import MemoryFilters
from memories.writes import bulk, doors


def _held() -> dict[tuple[str, int], int]:
    return {(row.target, row.tier): row.refs for row in DanglingTally.objects.all()}


def _in_step() -> dict[tuple[str, int], int]:
    """The tally, asserted equal to the rule's dangling references and to the engine's check."""
    expected = Counter((ref.target, ref.tier) for ref in dangling_references())
    held = _held()
    assert held == dict(expected)
    per_target = Counter()
    for (target, _), refs in held.items():
        per_target[target] += refs
    assert dict(DanglingTarget.objects.values_list("target", "refs")) == dict(per_target)
    totals = list(DanglingTotal.objects.values_list("id", "targets", "refs"))
    assert totals == ([(1, len(per_target), per_target.total())] if per_target else [])
    assert engine.of(connection).index.check().ok
    return held


def test_the_tally_follows_what_each_write_leaves_dangling(write, project, other_project):
    webdev, infra = project.id, other_project.id
    write("notes", project="webdev", references=["deploy", "docs/runbook.md"])
    write("rules", references=["deploy", "notes", "https://example.com/a"])
    assert _in_step() == {
        ("deploy", webdev): 1,
        ("docs/runbook.md", webdev): 1,
        ("deploy", 0): 1,
        ("https://example.com/a", 0): 1,
    }
    # A project memory of the name: webdev's reference names it, and so does the global one
    # (the name's one holder).
    write("deploy", project="webdev", references=["deploy"])
    assert _in_step() == {("docs/runbook.md", webdev): 1, ("https://example.com/a", 0): 1}
    # A second project holding it: the global reference no longer knows which it means.
    write("deploy", project="infra")
    assert _in_step()[("deploy", 0)] == 1
    doors.delete("deploy", project="webdev")
    assert ("deploy", webdev) in _in_step()
    assert ("deploy", 0) not in _held()
    doors.move("notes", project="webdev", to="infra")
    assert _in_step() == {("docs/runbook.md", infra): 1, ("https://example.com/a", 0): 1}
    write("more", references=["https://example.com/a"])
    assert _in_step()[("https://example.com/a", 0)] == 2
    write("more", references=["x"])
    bulk.move([Memory.objects.get(name="rules").id], "infra")
    _in_step()
    doors.delete("rules", project="infra")
    assert _in_step() == {("docs/runbook.md", infra): 1, ("x", 0): 1}


def test_a_rename_past_the_doors_moves_what_dangles(write, project):
    write("notes", project="webdev", references=["deploy", "old"])
    write("old", project="webdev")
    assert set(_in_step()) == {("deploy", project.id)}
    Memory.objects.filter(name="old").update(name="deploy")
    assert set(_in_step()) == {("old", project.id)}
    Memory.objects.filter(name="notes").update(project=None)
    assert _in_step() == {("old", 0): 1}
    Memory.objects.filter(name="deploy").delete()
    assert _in_step() == {("old", 0): 1, ("deploy", 0): 1}


def test_verify_finds_the_tally_out_of_step_and_rebuild_mends_it(write):
    write("notes", references=["deploy", "docs/runbook.md"])
    call_command("memory", "verify")
    DanglingTally.objects.filter(target="deploy").update(refs=5)
    assert any(
        "memories_danglingtally" in problem
        for problem in engine.of(connection).index.check().problems
    )
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    assert _in_step() == {("deploy", 0): 1, ("docs/runbook.md", 0): 1}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda: DanglingTarget.objects.filter(target="deploy").update(refs=5),
        lambda: DanglingTotal.objects.update(targets=7),
        lambda: DanglingTotal.objects.all().delete(),
    ],
    ids=["a target's sum", "the totals", "the totals' row gone"],
)
def test_verify_finds_the_sums_out_of_step_and_rebuild_mends_them(write, spoil):
    write("notes", references=["deploy", "docs/runbook.md"])
    write("more", project=None, references=["deploy"])
    spoil()
    assert not engine.of(connection).index.check().ok
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    assert _in_step() == {("deploy", 0): 2, ("docs/runbook.md", 0): 1}


def test_a_targets_first_citers_follow_their_priorities(write, project):
    for number in range(14):
        write(f"citer-{number:02}", references=["gone"], priority=5)
    write("webdev-citer", project="webdev", references=["gone"], priority=9)

    def first_citers(filters=None) -> list[str]:
        (target,) = hygiene.dangling(filters).items
        return [memory.name for memory in target.citing]

    newest_first = [f"citer-{number:02}" for number in range(13, 1, -1)]
    assert first_citers() == newest_first
    write("citer-00", references=["gone"], priority=1)
    assert first_citers()[0] == "citer-00"
    Memory.objects.filter(name="webdev-citer").update(priority=0)  # past the doors
    assert first_citers()[:2] == ["webdev-citer", "citer-00"]
    assert first_citers(MemoryFilters(project="webdev")) == ["webdev-citer"]
    assert first_citers(MemoryFilters(project=None))[0] == "citer-00"
    assert engine.of(connection).index.check().ok
