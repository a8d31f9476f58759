"""Each tag row's copy of its memory's tier, verification and expiry: written by the engine's
tag triggers, moved with the memory, stamped with its verification and expiry, checked by
`memory verify`, mended by `--rebuild`; the facets count a tag's memories off it."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import engine
from memories.models import Memory, Tag
from memories.writes import doors
from tests.conftest import backdate


def _kept() -> dict[tuple[str, str], tuple]:
    return {
        (row.memory.name, row.tag): (row.tier, row.verified_at, row.expires_at)
        for row in Tag.objects.select_related("memory")
    }


def _expected() -> dict[tuple[str, str], tuple]:
    return {
        (memory.name, tag): (memory.tier, memory.verified_at, memory.expires_at)
        for memory in Memory.objects.all()
        for tag in memory.tags
    }


def test_each_tag_carries_its_memorys_tier_and_verification(write, project, other_project):
    write("notes", project="webdev", tags=["ops", "docs"])
    write("rules", tags=["ops"])
    assert _kept() == _expected()
    assert _kept()[("notes", "ops")][0] == project.id
    doors.write("notes", project="webdev", move_to=other_project.name)
    assert _kept()[("notes", "ops")][0] == other_project.id
    doors.write("notes", project=other_project.name, move_to=None)
    assert _kept()[("notes", "ops")][0] == 0
    backdate(Memory.objects.get(name="rules"), days=200)
    assert _kept()[("rules", "ops")][1] < dt.datetime.now(dt.UTC) - dt.timedelta(days=199)
    doors.write("rules", verified=True)
    assert _kept() == _expected()
    assert _kept()[("rules", "ops")][1] > dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    doors.write("notes", tags=["elsewhere"])
    assert _kept() == _expected()
    assert set(_kept()) == {("notes", "elsewhere"), ("rules", "ops")}
    assert engine.of(connection).index.check().ok


def test_each_tag_carries_its_memorys_expiry(write):
    write("notes", tags=["ops", "docs"], expires="2031-05-06")
    write("rules", tags=["ops"])
    assert _kept() == _expected()
    assert _kept()[("notes", "docs")][2].year == 2031 and _kept()[("rules", "ops")][2] is None
    doors.write("rules", expires="2030-01-01")
    doors.write("notes", expires="")
    assert _kept() == _expected()
    assert _kept()[("notes", "ops")][2] is None and _kept()[("rules", "ops")][2].year in (
        2029,
        2030,
    )
    Memory.objects.filter(name="notes").update(expires_at=dt.datetime(2032, 1, 1, tzinfo=dt.UTC))
    assert _kept() == _expected()
    assert engine.of(connection).index.check().ok


@pytest.mark.parametrize("column", ["tier", "verified_at", "expires_at"])
def test_verify_finds_a_wrong_copy_and_rebuild_mends_it(write, project, column):
    write("notes", project="webdev", tags=["ops"], expires="2031-05-06")
    call_command("memory", "verify")
    Tag.objects.update(**{column: None})
    report = engine.of(connection).index.check()
    assert any("memories_tag" in problem for problem in report.problems)
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    call_command("memory", "verify")
    assert _kept() == _expected()


def test_a_dropped_verification_trigger_is_reported_and_put_back(write):
    with connection.cursor() as cursor:
        on_table = " ON memories_memory" if connection.vendor == "postgresql" else ""
        cursor.execute(f"DROP TRIGGER memories_tags_verified_au{on_table}")
    index = engine.of(connection).index
    assert "triggers missing: memories_tags_verified_au" in index.check().problems
    assert index.rebuild() == ["memories_tags_verified_au"]
    backdate(write("notes", tags=["ops"]).memory, days=30)
    assert _kept() == _expected()
