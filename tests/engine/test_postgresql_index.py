"""PostgreSQL's search index and derived tables: kept by triggers in the statement that
writes the row, checked against a recomputation, rebuilt; the cross-tier rule in the
database; the search statement served by the GIN and trigram indexes."""

import datetime as dt
import random
import string

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories import engine
from memories.models import Memory, Reference, Tag
from memories.reads.agent_view import TierReads
from memories.reads.filters import MemoryFilters
from memories.reads.search import ranking_sql
from memories.rules import tiers
from memories.writes import doors

pytestmark = pytest.mark.engine("postgresql")


def index():
    return engine.of(connection).index


def _match(words: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.name FROM memories_memory m JOIN memories_search s ON s.id = m.id"
            " WHERE s.search @@ plainto_tsquery('memadmin', %s) ORDER BY m.name",
            [words],
        )
        return [row[0] for row in cursor.fetchall()]


def test_triggers_keep_the_search_index_in_step_on_insert_update_delete(write):
    write("deploy", body="Deploys go to host seven, see /etc/nginx/nginx.conf")
    assert _match("host") == ["deploy"]
    assert _match("deploying") == ["deploy"], "porter stems deploys and deploying alike"
    assert _match("nginx conf") == ["deploy"], "a path is split into its words"
    assert _match("to") == ["deploy"], "no stopwords"
    doors.write("deploy", body="Ships to the cluster")
    assert _match("host") == [] and _match("cluster") == ["deploy"]
    doors.delete("deploy")
    assert _match("cluster") == []
    assert index().check().ok


def test_the_vector_is_weighted_name_description_body(write):
    write("heron", description="egret", body="stork")
    with connection.cursor() as cursor:
        cursor.execute("SELECT search::text FROM memories_search")
        assert cursor.fetchone()[0] == "'egret':2B 'heron':1A 'stork':3C"


def test_the_index_keeps_what_the_ranking_weighs_of_each_memory(write):
    """Priority, read count and the dates follow the memory without its text being indexed
    again, and the row goes with the memory."""
    memory = write("heron", body="stork", priority=3).memory
    verified = memory.verified_at + dt.timedelta(days=2)
    Memory.objects.filter(id=memory.id).update(priority=7, read_count=4, verified_at=verified)
    memory.refresh_from_db()
    columns = "priority, read_count, verified_day, created_at"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM memories_search WHERE id = %s", [memory.id])
        priority, reads, day, created = cursor.fetchone()
    julian_day = memory.verified_at.timestamp() / 86400 + 2440587.5
    assert (priority, reads, created) == (7, 4, memory.created_at)
    assert day == pytest.approx(julian_day, abs=1e-9)
    assert index().check().ok
    doors.delete("heron")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memories_search")
        assert cursor.fetchone()[0] == 0


def test_reference_and_tag_rows_follow_the_memory(write):
    memory = write("runbook", references=["deploy-host", "/etc/hosts"], tags=["infra"]).memory
    assert list(Reference.objects.values_list("position", "target").order_by("position")) == [
        (0, "deploy-host"),
        (1, "/etc/hosts"),
    ]
    assert list(Tag.objects.values_list("position", "tag")) == [(0, "infra")]
    doors.write("runbook", references=["other"], tags=[])
    assert list(Reference.objects.values_list("target", flat=True)) == ["other"]
    assert not Tag.objects.exists()
    doors.delete("runbook")
    assert not Reference.objects.filter(memory_id=memory.id).exists()
    assert index().check().ok


def test_the_database_refuses_a_global_name_a_project_holds(write, project):
    write("tz")
    write("stack", project="webdev")
    with pytest.raises(IntegrityError, match="never also a project"), transaction.atomic():
        Memory.objects.filter(name="stack").update(name="tz")
    assert Memory.objects.filter(name="stack", project=project).exists()


def test_check_catches_a_search_index_that_drifted_and_rebuild_mends_it(write):
    write("deploy", body="Deploys go to host seven")
    write("gone", body="Soon deleted")
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_search_au ON memories_memory")
        cursor.execute("UPDATE memories_memory SET body = 'entirely new words', priority = 9")
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the writes' checks, before ALTER
        cursor.execute("ALTER TABLE memories_memory DISABLE TRIGGER memories_derived_ad")
        cursor.execute("DELETE FROM memories_memory WHERE name = 'gone'")
        cursor.execute("ALTER TABLE memories_memory ENABLE TRIGGER memories_derived_ad")
    report = index().check()
    assert any("search index of 1 of 1 memories" in p for p in report.problems)
    assert "the search index holds 1 rows of memories that are gone" in report.problems
    assert any("memories_search_au" in p for p in report.problems)
    assert index().rebuild() == ["memories_search_au"]
    assert index().check().ok
    assert _match("entirely") == ["deploy"]
    assert _match("soon") == []


@pytest.mark.django_db(transaction=True)
def test_a_flush_of_the_store_empties_the_search_index():
    """Django's flush (between transactional tests; TRUNCATE of the models' tables) fires no
    row trigger: the search index would keep vectors of memories that are gone, and ids
    started afresh would find them."""
    doors.write("deploy", description="about deploy", body="Deploys go to host seven")
    call_command("flush", interactive=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memories_search")
        assert cursor.fetchone()[0] == 0
    assert index().check().ok


def test_a_dropped_search_table_is_named_and_put_back(write):
    write("deploy", body="Deploys go to host seven")
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE memories_search")
    assert "tables missing: memories_search" in index().check().problems
    assert index().rebuild() == ["memories_search", "memories_search_words"]
    assert index().check().ok
    assert _match("host") == ["deploy"]


def _out_of_row_bytes(table: str) -> int:
    """The bytes of the table's values held in its TOAST table (the live ones)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = %s", [table]
        )
        toast = cursor.fetchone()[0]
        cursor.execute(f"SELECT coalesce(sum(octet_length(chunk_data)), 0) FROM {toast}")
        return cursor.fetchone()[0]


def test_the_search_vector_is_kept_in_the_row_and_rebuild_brings_it_back(write):
    """A long memory's vector stays in the search index's row; a store whose vector had the
    default storage is told so, and rebuild moves the values back."""
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=5)) for _ in range(240)]
    body = " ".join(words)  # letters at random: neither the body nor its vector compresses
    write("long", body=body)
    assert index().check().ok
    assert _out_of_row_bytes("memories_search") == 0
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the write's checks, before ALTER
        cursor.execute("ALTER TABLE memories_search ALTER COLUMN search SET STORAGE extended")
        cursor.execute("UPDATE memories_search SET search = search || ''::tsvector")
    assert _out_of_row_bytes("memories_search") > 0, "the vector moved out of the row"
    problems = index().check().problems
    assert problems == ["the search vector's storage is extended, not main (in the row)"]
    index().rebuild()
    assert index().check().ok
    assert _out_of_row_bytes("memories_search") == 0
    assert _match(words[100]) == ["long"]


def test_check_catches_a_missing_index_and_a_reference_table_out_of_step(write):
    write("a", references=["x"], tags=["t"])
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM memories_reference")
        cursor.execute(
            "INSERT INTO memories_tag(memory_id, position, tag) SELECT id, 1, 'u'"
            " FROM memories_memory"
        )
        cursor.execute("DROP INDEX memories_body_trgm")
    problems = index().check().problems
    assert any("memories_reference" in p for p in problems)
    assert any("memories_tag" in p for p in problems)
    assert any("indexes missing: memories_body_trgm" in p for p in problems)
    assert index().rebuild() == ["memories_body_trgm"]
    assert index().check().ok
    assert list(Reference.objects.values_list("target", flat=True)) == ["x"]


def test_verify_command_reports_and_rebuilds(write, capsys):
    write("deploy", body="host")
    call_command("memory", "verify")
    assert "sound and holds 1 documents for 1 memories" in capsys.readouterr().out
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_search_au ON memories_memory")
        cursor.execute("UPDATE memories_memory SET body = 'drifted'")
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    assert "Put back missing triggers: memories_search_au" in capsys.readouterr().out
    call_command("memory", "verify")


def test_a_dropped_trigger_is_named_by_the_system_check(write):
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_refs_au ON memories_memory")
    errors = checks.run_checks(databases=["default"])
    assert any(e.id == "memories.E001" and "memories_refs_au" in e.msg for e in errors)
    index().rebuild()
    assert not [e for e in checks.run_checks(databases=["default"]) if e.id == "memories.E001"]


def test_migrations_leave_the_triggers_and_a_sound_index(db):
    assert index().check().ok
    with connection.cursor() as cursor:
        assert index().missing_triggers(cursor) == []


@pytest.mark.parametrize(
    ("queries", "used"),
    [
        (["heron"], "memories_search_words"),
        (["deploy-host.internal"], "memories_body_trgm"),
        (["東京オフィス"], "memories_description_trgm"),
    ],
)
def test_the_search_statement_is_an_index_search(write, queries, used):
    """The words through the GIN index, the plain-text sense through the trigram indexes
    rather than a scan (plain scans and index walks off: a small table is read whole,
    whichever indexes it has, and only a search of an index remains)."""
    write("heron", description="Heron at the lake", body="deploy-host.internal")
    sql, params = ranking_sql(queries, MemoryFilters())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert used in plan
    assert "Seq Scan on memories_memory" not in plan
    assert "Seq Scan on memories_search" not in plan


@pytest.mark.django_db(transaction=True)
def test_the_postgresql_migration_reverses_and_reapplies_cleanly():
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("memories", "0006_tag_folded")])
    with connection.cursor() as cursor:
        assert sorted(index().missing_triggers(cursor)) == sorted(index().TRIGGERS)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    report = index().check()
    assert report.ok, report.problems


def test_the_store_connections_carry_the_planner_settings_search_was_measured_with(db):
    """No JIT (compiling a large store's search cost more than running it), random reads
    priced as on SSD (config.database)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('jit'), current_setting('random_page_cost')")
        assert cursor.fetchone() == ("off", "1.1")


def test_a_bands_index_candidates_are_read_in_the_band_index_order(write):
    """Each tier's arm reads the band index in order and stops at its limit. The created_at
    the arms carry as text once took the column's name, and the arms sorted that text over
    the tier's whole priorities (7.4 ms of the budget report's statements at 100,000)."""
    for number in range(3):
        write(f"note-{number}", priority=number)
    reads = TierReads(timezone.now())
    with CaptureQueriesContext(connection) as queries:
        reads.read_tiers([tiers.GLOBAL_TIER])
    (arms,) = [query["sql"] for query in queries if "UNION ALL" in query["sql"]]
    with transaction.atomic(), connection.cursor() as cursor:
        # Whether a plan reading the band index in order exists, whatever the worker's earlier
        # tests left of the table: on three rows of a table they had bloated, the planner
        # sorted a bitmap scan of the tier's rows instead (in the full suite, twice).
        for kind in ("seqscan", "bitmapscan", "sort"):
            cursor.execute(f"SET LOCAL enable_{kind} = off")
        cursor.execute("EXPLAIN " + arms)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "memory_band" in plan and "Sort" not in plan
