"""The tallies per tier, load and priority (memories, body bytes, tags, the never read): kept
by the engine in the writing statement's transaction through every door, checked against a
recount by `memory verify`, mended by `--rebuild`."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from memories import engine
from memories.models import (
    BandTally,
    Memory,
    TagPairTally,
    TagTally,
    TagVerifiedTally,
    TrashedMemory,
    VerifiedTally,
)
from memories.rules.errors import DomainError
from memories.writes import bulk, doors, history, imports, snapshot, undo
from projects import writes as project_doors


def _index():
    """The store's engine's index module: the tallies are kept on either engine."""
    return engine.of(connection).index


def _recount() -> dict:
    """What the tallies should hold, counted the slow way."""
    band = {}
    for memory in Memory.objects.all():
        key = (memory.project_id or 0, memory.load, memory.priority)
        count, size, never_read = band.get(key, (0, 0, 0))
        band[key] = (count + 1, size + memory.body_bytes, never_read + (memory.read_count == 0))
    tags = {}
    for memory in Memory.objects.all():
        for tag in memory.tags:
            key = (memory.project_id or 0, memory.load, tag)
            count, never_read = tags.get(key, (0, 0))
            tags[key] = (count + 1, never_read + (memory.read_count == 0))
    days, tag_days, pairs = {}, {}, {}
    for memory in Memory.objects.all():
        tier, day = memory.project_id or 0, memory.verified_at.astimezone(dt.UTC).date()
        days[(tier, memory.load, day)] = days.get((tier, memory.load, day), 0) + 1
        for tag in memory.tags:
            tag_days[(tier, tag, day)] = tag_days.get((tier, tag, day), 0) + 1
            for other in memory.tags:
                if other != tag:
                    pairs[(tier, tag, other)] = pairs.get((tier, tag, other), 0) + 1
    return {"band": band, "tags": tags, "days": days, "tag_days": tag_days, "pairs": pairs}


def _held() -> dict:
    band = {
        (t.tier, t.load, t.priority): (t.memories, t.body_bytes, t.never_read)
        for t in BandTally.objects.all()
    }
    tags = {(t.tier, t.load, t.tag): (t.memories, t.never_read) for t in TagTally.objects.all()}
    days = {(t.tier, t.load, t.day): t.memories for t in VerifiedTally.objects.all()}
    tag_days = {(t.tier, t.tag, t.day): t.memories for t in TagVerifiedTally.objects.all()}
    pairs = {(t.tier, t.tag, t.other): t.memories for t in TagPairTally.objects.all()}
    return {"band": band, "tags": tags, "days": days, "tag_days": tag_days, "pairs": pairs}


def _in_step() -> None:
    assert _held() == _recount()
    assert _index().check().ok


def test_every_door_keeps_the_tallies_in_step(write, project, other_project):
    write("alpha", body="ab", tags=["ops", "ops", "people"], priority=2)
    write("beta", body="ééé", load="inline", project="webdev", tags=["ops"])
    write("gamma", body="", load="search", tags=["docs"])
    _in_step()
    doors.write("alpha", body="longer body", tags=["people"], priority=4)
    doors.edit("beta", project="webdev", old_string="ééé", new_string="e")
    doors.move("gamma", to="infra")
    _in_step()
    bulk.set_load([Memory.objects.get(name="alpha").id], "inline")
    bulk.shift_priority([m.id for m in Memory.objects.all()], 3)
    bulk.move([Memory.objects.get(name="beta").id], None)
    _in_step()
    doors.delete("gamma", project="infra")
    _in_step()
    undo.restore(TrashedMemory.objects.get().id)
    _in_step()
    with history.change_set("several", door=history.BULK) as group:
        doors.write("delta", description="new one", tags=["x"], body="dddd")
        doors.delete("alpha")
    _in_step()
    undo.undo(group.id)
    _in_step()
    project_doors.rename("webdev", "frontend")
    _in_step()


def test_a_first_read_moves_a_memory_out_of_the_never_read_tallies(write, project, tmp_path):
    write("alpha", body="ab", tags=["ops", "people"])
    write("beta", project="webdev", tags=["ops"], load="inline")
    write("gamma", tags=["ops"])
    doors.read("alpha")
    _in_step()
    assert BandTally.objects.get(tier=0).never_read == 1  # gamma
    assert TagTally.objects.get(tier=0, tag="ops").never_read == 1
    doors.read("alpha")  # a later read moves nothing
    doors.read("beta", project="webdev")
    _in_step()
    assert sum(TagTally.objects.values_list("never_read", flat=True)) == 1
    # The doors that write a read memory keep it read; an undo, an import and a write past
    # the doors set read_count as they find it.
    doors.write("alpha", tags=["docs"], load="search")
    doors.move("beta", to=None)
    _in_step()
    doors.delete("alpha")
    undo.restore(TrashedMemory.objects.get().id)
    _in_step()
    snapshot.export_directory(tmp_path / "dump")
    Memory.objects.filter(name="gamma").update(read_count=2)
    Memory.objects.filter(name="beta").update(read_count=0)
    _in_step()
    imports.import_memories(snapshot.read_directory(tmp_path / "dump"), force=True)
    _in_step()
    assert BandTally.objects.get(tier=0, load="index").never_read == 1  # gamma again


def test_verifying_and_retagging_keep_the_day_and_pair_tallies_in_step(write, project):
    write("alpha", tags=["ops", "people", "docs"])
    write("beta", project="webdev", tags=["ops", "people"])
    write("gamma", tags=["people"], load="search")
    # Past the doors, as a script or an import would: a verification late on one UTC day.
    Memory.objects.filter(name="alpha").update(
        verified_at=dt.datetime(2025, 3, 4, 23, 30, tzinfo=dt.UTC)
    )
    Memory.objects.filter(name="beta").update(
        verified_at=dt.datetime(2026, 1, 2, 0, 10, tzinfo=dt.UTC)
    )
    _in_step()
    assert VerifiedTally.objects.get(tier=0, day=dt.date(2025, 3, 4)).memories == 1
    assert TagPairTally.objects.get(tier=0, tag="ops", other="people").memories == 1
    doors.write("alpha", verified=True)
    doors.write("gamma", tags=["people", "ops"])
    doors.move("beta", to=None)
    _in_step()
    assert not VerifiedTally.objects.filter(day=dt.date(2025, 3, 4)).exists()
    assert TagPairTally.objects.get(tier=0, tag="people", other="ops").memories == 3
    doors.write("beta", tags=["ci"])
    bulk.set_load([Memory.objects.get(name="gamma").id], "inline")
    doors.delete("alpha")
    _in_step()
    assert sorted(TagPairTally.objects.values_list("tag", "other", "memories")) == [
        ("ops", "people", 1),
        ("people", "ops", 1),
    ]


def test_a_refused_write_leaves_the_tallies_as_they_were(write, small_budget):
    write("rule", body="x" * 90, load="inline")
    before = _held()
    with pytest.raises(DomainError):
        doors.write("second", description="too big", body="y" * 50, load="inline")
    with pytest.raises(RuntimeError), transaction.atomic():
        doors.write("third", description="rolled back", body="z", tags=["gone"])
        raise RuntimeError
    assert _held() == before
    _in_step()


def test_an_import_keeps_the_tallies_in_step(write, project, tmp_path):
    write("kept", body="k", tags=["a"])
    write("other", project="webdev", body="o", load="inline", tags=["b"])
    snapshot.export_directory(tmp_path / "dump")
    doors.delete("kept")
    doors.write("other", project="webdev", body="changed", tags=["c"])
    imports.import_memories(snapshot.read_directory(tmp_path / "dump"), force=True)
    _in_step()


def test_verify_finds_a_tally_out_of_step_and_rebuild_mends_it(write, capsys):
    write("deploy", body="host", tags=["ops", "ci"])
    call_command("memory", "verify")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE memories_bandtally SET memories = memories + 1")
        cursor.execute("DELETE FROM memories_tagtally")
        cursor.execute("UPDATE memories_verifiedtally SET memories = memories + 1")
        cursor.execute("UPDATE memories_tagverifiedtally SET memories = 7")
        cursor.execute("DELETE FROM memories_tagpairtally")
    report = _index().check()
    for table in (
        "memories_bandtally",
        "memories_tagtally",
        "memories_verifiedtally",
        "memories_tagverifiedtally",
        "memories_tagpairtally",
    ):
        assert any(table in problem for problem in report.problems), table
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    call_command("memory", "verify")
    _in_step()


def test_a_dropped_tally_trigger_is_reported_and_put_back(write):
    with connection.cursor() as cursor:
        on_table = " ON memories_memory" if connection.vendor == "postgresql" else ""
        cursor.execute(f"DROP TRIGGER memories_tally_au{on_table}")
    write("deploy", body="host")
    doors.write("deploy", body="a longer host")
    report = _index().check()
    assert "triggers missing: memories_tally_au" in report.problems
    assert _index().rebuild() == ["memories_tally_au"]
    _in_step()
    doors.write("deploy", body="moved on again")
    _in_step()
