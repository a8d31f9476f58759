"""The bulk doors: one transaction over the single-memory doors, all or nothing."""

import pytest

from memories.models import Memory
from memories.rules.errors import InlineBudgetExceeded, InvalidField, NameClash, UnknownProject
from memories.writes import bulk, doors


@pytest.fixture
def rows(db, project):
    return [
        doors.write(name, description=name, body=name[0] * 40, priority=p).memory
        for name, p in [("alpha", 1), ("bravo", 2), ("charlie", 3)]
    ]


def ids(memories):
    return [m.id for m in memories]


def test_each_door_lands_on_every_row(rows):
    assert bulk.set_priority(ids(rows), 4).applied
    assert set(Memory.objects.values_list("priority", flat=True)) == {4}
    bulk.shift_priority(ids(rows), 98)
    assert set(Memory.objects.values_list("priority", flat=True)) == {100}
    bulk.set_load(ids(rows), "search")
    assert set(Memory.objects.values_list("load", flat=True)) == {"search"}
    before = {m.id: m.verified_at for m in Memory.objects.all()}
    bulk.verify(ids(rows))
    assert all(m.verified_at > before[m.id] for m in Memory.objects.all())
    bulk.move(ids(rows[:2]), "webdev")
    assert Memory.objects.filter(project__name="webdev").count() == 2
    result = bulk.delete(ids(rows))
    assert result.applied and not Memory.objects.exists()


def test_a_refusal_rolls_the_whole_batch_back_and_names_every_refused_row(rows, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 90
    result = bulk.set_load(ids(rows), "inline")
    assert not result.applied and result.outcomes == []
    # alpha's 40 bytes fit, bravo's take the band to 80, charlie's would make 120
    assert [r.memory.name for r in result.refused] == ["charlie"]
    assert isinstance(result.refused[0].error, InlineBudgetExceeded)
    assert not Memory.objects.filter(load="inline").exists()


def test_rows_are_taken_in_index_order_whatever_order_they_were_given(rows, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 50
    result = bulk.set_load(list(reversed(ids(rows))), "inline")
    assert [m.name for m in result.targets] == ["alpha", "bravo", "charlie"]
    assert [r.memory.name for r in result.refused] == ["bravo", "charlie"]


def test_a_move_into_a_tier_holding_the_name_is_refused_per_row(rows, other_project):
    doors.write("shared", project="webdev", description="web shared")
    doors.write("shared", project="infra", description="infra shared")
    doors.write("solo", project="webdev", description="web solo")
    moving = Memory.objects.filter(project__name="webdev").order_by("name")
    result = bulk.move(ids(moving), "infra")
    assert [(r.memory.name, type(r.error)) for r in result.refused] == [("shared", NameClash)]
    assert Memory.objects.get(name="solo").project.name == "webdev"  # rolled back too


def test_a_move_to_global_of_a_name_another_project_holds_is_refused(rows, other_project):
    doors.write("twin", project="webdev", description="web twin")
    doors.write("twin", project="infra", description="infra twin")
    result = bulk.move([Memory.objects.get(name="twin", project__name="webdev").id], None)
    assert "a global name is never also a project's" in result.refused[0].error.message


def test_vanished_rows_are_counted_not_refused(rows):
    result = bulk.verify([*ids(rows), 999_999])
    assert result.applied and result.missing == 1 and len(result.targets) == 3


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda i: bulk.set_priority(i, 101), InvalidField),
        (lambda i: bulk.set_priority(i, None), InvalidField),
        (lambda i: bulk.shift_priority(i, "3"), InvalidField),
        (lambda i: bulk.set_load(i, "sometimes"), InvalidField),
        (lambda i: bulk.move(i, "nowhere"), UnknownProject),
        (lambda i: bulk.verify([]), InvalidField),
    ],
)
def test_bad_arguments_are_refused_before_anything(rows, call, error):
    with pytest.raises(error):
        call(ids(rows))
    assert set(Memory.objects.values_list("priority", flat=True)) == {1, 2, 3}


def test_more_than_the_limit_is_refused(rows, monkeypatch):
    monkeypatch.setattr("memories.writes.bulk.BULK_LIMIT", 2)
    with pytest.raises(InvalidField, match="at most 2 at a time"):
        bulk.verify(ids(rows))


def test_must_create_refuses_an_existing_name(rows):
    with pytest.raises(NameClash, match="already holds a memory named 'alpha'"):
        doors.write("alpha", project=None, description="again", must_create=True)
    assert Memory.objects.get(name="alpha").description == "alpha"
    assert doors.write("zulu", project=None, description="new", must_create=True).created
