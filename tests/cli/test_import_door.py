"""imports.import_memories and imports.preview_import, called with entries rather than files."""

import datetime as dt

import pytest

from memories.models import Memory
from memories.rules.errors import ImportRefused
from memories.writes import imports
from tests.cli.conftest import store_state

CREATED = dt.datetime(2023, 3, 4, 5, 6, 7, 890123, tzinfo=dt.UTC)


def entry(name="note", **values) -> imports.ImportEntry:
    values.setdefault("project", None)
    values.setdefault("description", f"about {name}")
    values.setdefault("created_at", CREATED)
    return imports.ImportEntry(name=name, **values)


def test_an_import_restores_created_verified_and_read_count(db):
    verified = CREATED + dt.timedelta(days=3)
    batches = []
    result = imports.import_memories(
        [entry(read_count=12, verified_at=verified), entry("other", description="  two\nlines ")],
        progress=batches.append,
    )
    assert [e.name for e in result.added] == ["note", "other"]
    assert batches == [2]
    note = Memory.objects.get(name="note")
    assert (note.created_at, note.verified_at, note.read_count) == (CREATED, verified, 12)
    assert note.updated_at > verified
    other = Memory.objects.get(name="other")
    assert other.verified_at == CREATED, "verified defaults to created"
    assert other.description == "two lines", "collapsed as every write door does"


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ({"created_at": dt.datetime(2023, 1, 1)}, "The created date needs a time and a zone"),
        ({"verified_at": "yesterday"}, "The verified date needs a time and a zone"),
        ({"read_count": -1}, "The read_count is a whole number, 0 or more."),
        ({"read_count": True}, "The read_count is a whole number, 0 or more."),
        ({"read_count": 2**40}, "The read_count is at most 2147483647."),
        ({"description": " \n "}, "A memory needs a description."),
        ({"body": "nul \x00"}, "The body may not contain a NUL character."),
        ({"tags": ["two\nlines"]}, "Each of the tags is one line."),
        ({"expires_at": "soon"}, "'soon' is not an RFC 3339 timestamp"),
    ],
)
def test_each_field_is_held_to_the_write_door_rules(db, values, reason):
    plan = imports.preview_import([entry(**values)])
    assert plan.refused[0].reason.startswith(reason)
    with pytest.raises(ImportRefused):
        imports.import_memories([entry(**values)])
    assert not Memory.objects.exists()


def test_the_same_memory_twice_in_one_snapshot_is_refused(db):
    plan = imports.preview_import([entry(), entry()])
    assert [p.action for p in plan.entries] == ["add", "refuse"]
    assert plan.refused[0].reason == "The snapshot holds it twice."


def test_a_refusal_message_groups_its_reasons_and_lands_nothing(db, write):
    write("kept")
    before = store_state()
    entries = [entry("kept"), *(entry(f"g{n}", project="ghost") for n in range(5))]
    with pytest.raises(ImportRefused) as refused:
        imports.import_memories(entries)
    assert refused.value.message == (
        "Nothing was imported. 6 of the snapshot's 6 memories are refused. The store already "
        "holds it in the same tier; overwriting needs force: 'kept' (global). There is no "
        "project named 'ghost'; add it first: 'g0' (ghost), 'g1' (ghost), 'g2' (ghost) and 2 "
        "more."
    )
    assert refused.value.status == 409
    assert store_state() == before


def test_an_overwrite_that_shrinks_an_over_budget_band_goes_through(db, write, settings):
    write("big", load="inline", body="x" * 300)
    settings.MEMADMIN_INLINE_MAX_BYTES = 100  # lowered beneath what the store holds
    imports.import_memories([entry("big", load="inline", body="x" * 200)], force=True)
    assert Memory.objects.get(name="big").body == "x" * 200
    with pytest.raises(ImportRefused, match="The whole would pass the inline budget"):
        imports.import_memories([entry("big", load="inline", body="x" * 250)], force=True)
