"""The citing memory's tier on each reference row: written by the engine's reference
triggers, moved with the memory, checked by `memory verify`, mended by `--rebuild`; the
dangling count reads it."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import engine
from memories.models import Memory, Reference
from memories.reads.backlinks import dangling_references
from memories.writes import doors


def _tiers() -> dict[tuple[str, str], int]:
    return {
        (row.memory.name, row.target): row.tier
        for row in Reference.objects.select_related("memory")
    }


def _expected() -> dict[tuple[str, str], int]:
    return {
        (memory.name, target): memory.tier
        for memory in Memory.objects.all()
        for target in memory.references
    }


def test_each_reference_carries_its_citing_tier_through_writes_and_moves(
    write, project, other_project
):
    write("notes", project="webdev", references=["deploy", "docs/runbook.md"])
    write("rules", references=["notes"])
    assert _tiers() == _expected()
    assert _tiers()[("notes", "deploy")] == project.id
    doors.write("notes", project="webdev", move_to=other_project.name)
    assert _tiers()[("notes", "deploy")] == other_project.id
    doors.write("notes", project=other_project.name, move_to=None)
    assert _tiers()[("notes", "deploy")] == 0
    doors.write("notes", references=["elsewhere"])
    assert _tiers() == _expected() == {("notes", "elsewhere"): 0, ("rules", "notes"): 0}
    assert engine.of(connection).index.check().ok


def test_a_move_changes_what_is_dangling(write, project, other_project):
    write("deploy", project="webdev")
    write("notes", project="webdev", references=["deploy"])
    assert not dangling_references().exists()
    doors.write("notes", project="webdev", move_to=other_project.name)
    assert [ref.target for ref in dangling_references()] == ["deploy"]


def test_verify_finds_a_wrong_tier_and_rebuild_mends_it(write, project):
    write("notes", project="webdev", references=["deploy"])
    call_command("memory", "verify")
    Reference.objects.update(tier=0)
    report = engine.of(connection).index.check()
    assert any("memories_reference" in problem for problem in report.problems)
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    call_command("memory", "verify")
    assert _tiers() == {("notes", "deploy"): project.id}


def test_a_dropped_move_trigger_is_reported_and_put_back(write, project):
    with connection.cursor() as cursor:
        on_table = " ON memories_memory" if connection.vendor == "postgresql" else ""
        cursor.execute(f"DROP TRIGGER memories_refs_tier_au{on_table}")
    index = engine.of(connection).index
    assert "triggers missing: memories_refs_tier_au" in index.check().problems
    assert index.rebuild() == ["memories_refs_tier_au"]
    write("notes", project="webdev", references=["deploy"])
    doors.write("notes", project="webdev", move_to=None)
    assert _tiers() == _expected()


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_tiers_and_the_trigger_check_waits_for_it():
    from django.core import checks
    from django.db.migrations.executor import MigrationExecutor

    from projects import writes as project_doors

    webdev = project_doors.add("webdev")
    doors.write("notes", project="webdev", description="notes", references=["deploy"])
    executor = MigrationExecutor(connection)
    executor.migrate([("memories", "0015_memory_tier_verified")])
    # Its trigger is missing until 0015 runs, and `migrate` runs the checks first.
    assert not [e for e in checks.run_checks(databases=["default"]) if e.id == "memories.E001"]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert _tiers() == {("notes", "deploy"): webdev.id}
    assert engine.of(connection).index.check().ok
