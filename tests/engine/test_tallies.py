"""The tallies per tier, load and priority (memories, body bytes, tags): kept by the engine in
the writing statement's transaction through every door, checked against a recount by
`memory verify`, mended by `--rebuild`, and read with the expired memories taken off."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from memories.engine.sqlite import index as sqlite_index
from memories.models import BandTally, Memory, Tag, TagTally, TrashedMemory
from memories.reads import budget, listing, tallies
from memories.reads.agent_view import agent_view
from memories.reads.drift import priority_histograms
from memories.reads.filters import MemoryFilters
from memories.rules.errors import DomainError
from memories.writes import bulk, doors, history, imports, snapshot, undo
from projects import writes as project_doors


def _recount() -> dict:
    """What the tallies should hold, counted the slow way."""
    band = {}
    for memory in Memory.objects.all():
        key = (memory.project_id or 0, memory.load, memory.priority)
        count, size = band.get(key, (0, 0))
        band[key] = (count + 1, size + memory.body_bytes)
    tags = {}
    for memory in Memory.objects.all():
        for tag in memory.tags:
            key = (memory.project_id or 0, memory.load, tag)
            tags[key] = tags.get(key, 0) + 1
    return {"band": band, "tags": tags}


def _held() -> dict:
    band = {
        (t.tier, t.load, t.priority): (t.memories, t.body_bytes) for t in BandTally.objects.all()
    }
    tags = {(t.tier, t.load, t.tag): t.memories for t in TagTally.objects.all()}
    return {"band": band, "tags": tags}


def _in_step() -> None:
    assert _held() == _recount()
    assert sqlite_index.check().ok


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


def test_the_counts_of_a_view_take_the_expired_off(write, project):
    now = timezone.now()
    past, future = now - dt.timedelta(days=1), now + dt.timedelta(days=1)
    for number in range(5):
        write(f"listed{number}", tags=["ops"])
    write("gone", expires=past.isoformat(), tags=["ops"])
    write("going", expires=future.isoformat(), tags=["ops"], project="webdev")
    write("quiet", load="search", project="webdev")
    write("quiet-gone", load="search", expires=past.isoformat())
    write("rule", load="inline", body="1234", tags=["style"])
    write("old-rule", load="inline", body="12345678", expires=past.isoformat())
    global_tally = tallies.tier_tally(0, now)
    assert global_tally.in_force("index") == 5
    assert global_tally.in_force("search") == 0
    assert global_tally.expired_total == 3
    assert budget.inline_totals(now) == {0: 4}
    view = agent_view(project, now)
    assert (view.index.left_out, view.search_only, view.expired) == (0, 1, 3)
    assert view.inline_total == 4


def test_left_out_tags_count_what_the_index_leaves_out(write, settings):
    settings.MEMADMIN_INDEX_MAX_ENTRIES = 3
    now = timezone.now()
    for number in range(3):
        write(f"top{number}", tags=["listed"], priority=0)
    for number in range(4):
        write(f"rest{number}", tags=["ops", "docs"] if number else ["docs"], priority=9)
    write("expired", tags=["ops"], priority=9, expires=(now - dt.timedelta(hours=1)).isoformat())
    write("searchable", tags=["ops"], load="search")
    view = agent_view(None, now)
    assert view.index.left_out == 4
    expected = (
        Tag.objects.filter(
            memory__load="index", memory__priority=9, memory__expires_at__isnull=True
        )
        .values_list("tag")
        .annotate(n=Count("id"))
        .order_by("-n", "tag")
    )
    assert view.index.left_out_tags == list(expected) == [("docs", 4), ("ops", 3)]


def test_priority_histograms_come_from_the_tallies(write, project):
    write("a", priority=1)
    write("b", priority=1, project="webdev")
    write("c", priority=7, project="webdev", expires="2000-01-01")
    by_tier = {h.project: h.counts for h in priority_histograms()}
    assert by_tier == {None: {1: 1}, "webdev": {1: 1, 7: 1}}
    counted = Memory.objects.filter(Q(project__isnull=True)).count()
    assert sum(by_tier[None].values()) == counted


def test_verify_finds_a_tally_out_of_step_and_rebuild_mends_it(write, capsys):
    write("deploy", body="host", tags=["ops"])
    call_command("memory", "verify")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE memories_bandtally SET memories = memories + 1")
        cursor.execute("DELETE FROM memories_tagtally")
    report = sqlite_index.check()
    assert any("memories_bandtally" in problem for problem in report.problems)
    assert any("memories_tagtally" in problem for problem in report.problems)
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    call_command("memory", "verify")
    _in_step()


def test_a_dropped_tally_trigger_is_reported_and_put_back(write):
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER memories_tally_au")
    write("deploy", body="host")
    doors.write("deploy", body="a longer host")
    report = sqlite_index.check()
    assert "triggers missing: memories_tally_au" in report.problems
    assert sqlite_index.rebuild() == ["memories_tally_au"]
    _in_step()
    doors.write("deploy", body="moved on again")
    _in_step()


FILTERS = [
    {},
    {"project": None},
    {"project": "webdev"},
    {"load": "search"},
    {"tag": "ops"},
    {"tag": "ops", "project": "webdev", "load": "index"},
    {"priority_min": 2, "priority_max": 5},
    {"expired": False},
    {"expired": False, "tag": "ops", "project": None},
    {"expired": False, "load": "inline", "priority_max": 3},
]


@pytest.mark.parametrize("given", FILTERS, ids=[str(f) for f in FILTERS])
def test_a_count_from_the_tallies_is_the_count_of_the_rows(write, project, given):
    now = timezone.now()
    past = (now - dt.timedelta(days=2)).isoformat()
    for number in range(12):
        write(
            f"m{number}",
            project="webdev" if number % 3 else None,
            load=("index", "search", "inline")[number % 3],
            priority=number % 7,
            tags=[["ops"], ["ops", "docs"], []][number % 3],
            expires=past if number % 4 == 0 else None,
            body="b" * number,
        )
    filters = MemoryFilters(**given)
    assert tallies.count(filters, now) == filters.apply(Memory.objects.all(), now).count()


@pytest.mark.parametrize(
    "given",
    [
        {"expired": True},
        {"unverified": "90d"},
        {"referencing": "x"},
        {"tag": "a", "priority_min": 1},
    ],
)
def test_the_tallies_leave_other_counts_to_the_rows(db, given):
    assert tallies.count(MemoryFilters(**given), timezone.now()) is None


def test_the_list_counts_from_the_tallies(write, django_assert_num_queries):
    for number in range(3):
        write(f"m{number}", tags=["ops"])
    with django_assert_num_queries(2):  # the tallies, the page
        page = listing.list_memories(MemoryFilters(tag="ops"), limit=2)
    assert page.count == 3 and len(page.memories) == 2
