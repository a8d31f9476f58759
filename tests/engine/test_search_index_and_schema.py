"""The FTS5 index and derived tables: triggers, the drift check, rebuild, and the guard
against a table rebuild dropping the triggers."""

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories.engine.sqlite import index as sqlite_index
from memories.models import Memory, Reference, Tag
from memories.writes import doors

pytestmark = pytest.mark.engine("sqlite")


def _match(query: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.name FROM memories_fts JOIN memories_memory m ON m.id = memories_fts.rowid "
            "WHERE memories_fts MATCH %s ORDER BY m.name",
            [query],
        )
        return [row[0] for row in cursor.fetchall()]


def test_triggers_keep_the_index_in_step_on_insert_update_delete(write):
    write("deploy", body="Deploys go to host seven")
    assert _match("host") == ["deploy"]
    assert _match("deploying") == ["deploy"], "porter stems deploys and deploying alike"
    doors.write("deploy", body="Ships to the cluster")
    assert _match("host") == [] and _match("cluster") == ["deploy"]
    doors.delete("deploy")
    assert _match("cluster") == []
    assert sqlite_index.check().ok


def test_reference_and_tag_rows_follow_the_memory(write):
    memory = write("runbook", references=["deploy-host", "/etc/hosts"], tags=["infra"]).memory
    assert list(Reference.objects.values_list("target", flat=True).order_by("position")) == [
        "deploy-host",
        "/etc/hosts",
    ]
    doors.write("runbook", references=["other"], tags=[])
    assert list(Reference.objects.values_list("target", flat=True)) == ["other"]
    assert not Tag.objects.exists()
    doors.delete("runbook")
    assert not Reference.objects.filter(memory_id=memory.id).exists()
    assert sqlite_index.check().ok


def test_check_catches_text_that_drifted_from_the_index(write):
    write("deploy", body="Deploys go to host seven")
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_fts_au")
        cursor.execute(
            "UPDATE memories_memory SET body = 'entirely new words' WHERE name = 'deploy'"
        )
        # The plain checks are happy with a drifted external-content index.
        cursor.execute("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')")
        cursor.execute("PRAGMA integrity_check")
        assert cursor.fetchone()[0] == "ok"
    report = sqlite_index.check()
    assert not report.ok
    assert any("does not match" in problem for problem in report.problems)
    assert any("memories_fts_au" in problem for problem in report.problems)
    restored = sqlite_index.rebuild()
    assert restored == ["memories_fts_au"]
    assert sqlite_index.check().ok
    assert _match("entirely") == ["deploy"]


def test_check_catches_a_document_count_mismatch(write):
    write("a")
    write("b")
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_fts_ad")
        cursor.execute("DELETE FROM memories_memory WHERE name = 'a'")
    report = sqlite_index.check()
    assert any("2 documents for 1 memories" in problem for problem in report.problems)
    sqlite_index.rebuild()
    assert sqlite_index.check().ok


def test_check_catches_a_reference_table_out_of_step(write):
    write("a", references=["x"])
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM memories_reference")
    assert any("memories_reference" in p for p in sqlite_index.check().problems)
    sqlite_index.rebuild()
    assert sqlite_index.check().ok


def test_verify_command_reports_and_rebuilds(write, capsys):
    write("deploy", body="host")
    call_command("memory", "verify")
    assert "sound and holds 1 documents for 1 memories" in capsys.readouterr().out
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_fts_au")
        cursor.execute("UPDATE memories_memory SET body = 'drifted'")
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    assert "Put back missing triggers: memories_fts_au" in capsys.readouterr().out
    call_command("memory", "verify")


def test_migrations_leave_the_triggers_and_a_sound_index(db):
    assert sqlite_index.check().ok
    with connection.cursor() as cursor:
        assert sqlite_index.missing_triggers(cursor) == []


@pytest.mark.django_db(transaction=True)
def test_a_table_rebuild_drops_triggers_and_the_system_check_says_so():
    """A later AlterField makes Django remake the SQLite table, losing its triggers."""
    from django.db import models

    old_field = Memory._meta.get_field("source")
    new_field = models.TextField(blank=True, default="", db_comment="altered")
    new_field.set_attributes_from_name("source")
    new_field.model = Memory
    try:
        with connection.schema_editor() as editor:
            editor.alter_field(Memory, old_field, new_field, strict=True)
        with connection.cursor() as cursor:
            assert sqlite_index.missing_triggers(cursor), (
                "the remake should have dropped the triggers"
            )
        errors = checks.run_checks(databases=["default"])
        assert any(error.id == "memories.E001" for error in errors)
    finally:
        with connection.schema_editor() as editor:
            editor.alter_field(Memory, new_field, old_field, strict=True)
        sqlite_index.rebuild()
    assert not [e for e in checks.run_checks(databases=["default"]) if e.id == "memories.E001"]
    assert sqlite_index.check().ok


@pytest.mark.django_db(transaction=True)
def test_the_fts_migration_reverses_and_reapplies_cleanly():
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("memories", "0001_initial")])
    with connection.cursor() as cursor:
        assert sorted(sqlite_index.missing_triggers(cursor)) == sorted(sqlite_index.TRIGGERS)
        cursor.execute("SELECT count(*) FROM sqlite_master WHERE name = 'memories_fts'")
        assert cursor.fetchone()[0] == 0
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    report = sqlite_index.check()
    assert report.ok, report.problems
