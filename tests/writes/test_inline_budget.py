"""The inline budget, exactly as the seed says: bytes, bands, refusals, shrinking."""

import datetime as dt

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.reads import budget
from memories.rules.budget import band_total, refusal_sentence
from memories.rules.errors import InlineBudgetExceeded
from memories.writes import doors


def test_budget_counts_utf8_bytes_not_characters(write, small_budget):
    # 'é' is 2 bytes, '字' 3, '🙂' 4: 25 characters, 100 bytes.
    body = "é" * 5 + "字" * 10 + "🙂" * 10 + "a" * 0
    assert len(body.encode()) == 80
    write("a", load="inline", body=body)
    write("b", load="inline", body="x" * 20)  # exactly 100 bytes: allowed
    with pytest.raises(InlineBudgetExceeded) as error:
        write("c", load="inline", body="é")  # 2 bytes over
    assert error.value.total_bytes == 102
    assert error.value.budget_bytes == 100
    assert not Memory.objects.filter(name="c").exists()


def test_refusal_names_the_total_budget_largest_and_remedy(write, small_budget):
    write("handbook", load="inline", body="h" * 60)
    write("deploy", load="inline", body="d" * 30)
    with pytest.raises(InlineBudgetExceeded) as error:
        write("tone", load="inline", body="t" * 20)
    message = error.value.message
    assert message.startswith("inline memories would total 0.1 KiB against the 0.1 KiB")
    assert "shorten 'handbook' (0.1 KiB), 'deploy' (0.0 KiB) or 'tone' (0.0 KiB)" in message
    assert "set `load: index` on one that is not a standing rule" in message
    assert [row["name"] for row in error.value.largest] == ["handbook", "deploy", "tone"]


def test_seed_sentence_format(settings):
    largest = [
        {"name": "handbook", "project": None, "bytes": int(20.1 * 1024)},
        {"name": "deploy", "project": None, "bytes": int(6.2 * 1024)},
        {"name": "tone", "project": None, "bytes": int(1.1 * 1024)},
    ]
    total = int(33.4 * 1024)
    assert refusal_sentence(total, 32 * 1024, largest, band=None, was=total - 2048) == (
        "inline memories would total 33.4 KiB against the 32.0 KiB inline budget "
        "(`MEMADMIN_INLINE_MAX_BYTES`) in the global band; shorten 'handbook' (20.1 KiB) or "
        "'deploy' (6.2 KiB), or set `load: index` on one that is not a standing rule "
        "(the band held 31.4 KiB before this change; this change adds 2.0 KiB)"
    )  # 'tone' (1.1 KiB) is named by `largest`, but shortening it cannot take off 1.4 KiB


def test_the_sentence_says_a_band_was_over_before_a_small_write():
    largest = [{"name": "legacy-rule-04", "project": None, "bytes": 3400}]
    sentence = refusal_sentence(42300, 40960, largest, band=None, was=42290)
    assert sentence.endswith(
        "(the band held 41.3 KiB before this change, already over the budget; "
        "this change adds 10 bytes)"
    )


def test_the_remedy_says_how_far_over_when_no_one_memory_is_enough():
    largest = [
        {"name": "a", "project": None, "bytes": 100},
        {"name": "b", "project": None, "bytes": 50},
    ]
    assert refusal_sentence(1300, 1000, largest, band="webdev", was=900).endswith(
        "in the webdev band (global + webdev); it is 0.3 KiB over, more than any one of them "
        "holds: shorten 'a' (0.1 KiB) and 'b' (0.0 KiB), or set `load: index` on those that "
        "are not standing rules (the band held 0.9 KiB before this change; this change adds "
        "400 bytes)"
    )


def test_a_global_write_names_the_fullest_project_as_the_band_it_would_pass(
    write, project, other_project, settings
):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("w", project="webdev", load="inline", body="w" * 90)
    write("i", project="infra", load="inline", body="i" * 10)
    with pytest.raises(InlineBudgetExceeded) as error:
        write("g", load="inline", body="g" * 20)
    assert error.value.band == "webdev"
    assert "in the webdev band (global + webdev); shorten 'w'" in error.value.message


def test_an_update_that_grows_past_the_budget_lands_nothing(write, small_budget):
    write("a", load="inline", body="x" * 90)
    with pytest.raises(InlineBudgetExceeded):
        doors.write("a", body="x" * 101, tags=["new"], priority=1)
    memory = Memory.objects.get(name="a")
    assert (memory.body, memory.tags, memory.priority) == ("x" * 90, [], 5)


def test_switching_load_to_inline_is_counted(write, small_budget):
    write("a", load="inline", body="x" * 90)
    write("b", body="y" * 50)
    with pytest.raises(InlineBudgetExceeded):
        doors.write("b", load="inline")


def test_index_search_expired_and_empty_bodies_spend_nothing(write, small_budget):
    write("a", load="inline", body="x" * 100)
    write("b", load="index", body="y" * 500)
    write("c", load="search", body="y" * 500)
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    write("d", load="inline", body="z" * 500, expires=past)
    write("e", load="inline", body="")
    assert budget.inline_totals(timezone.now()) == {0: 100}


def test_project_write_counts_global_plus_that_project(write, project, other_project, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("g", load="inline", body="g" * 50)
    write("w", project="webdev", load="inline", body="w" * 50)
    write("i", project="infra", load="inline", body="i" * 50)  # infra's band: 100, allowed
    with pytest.raises(InlineBudgetExceeded) as error:
        write("w2", project="webdev", load="inline", body="w")
    assert error.value.total_bytes == 101
    assert {row["name"] for row in error.value.largest} == {"g", "w", "w2"}


def test_global_write_counts_global_plus_the_fullest_project(
    write, project, other_project, settings
):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("w", project="webdev", load="inline", body="w" * 70)
    write("i", project="infra", load="inline", body="i" * 10)
    write("g", load="inline", body="g" * 30)  # 30 + 70 = 100: allowed
    with pytest.raises(InlineBudgetExceeded) as error:
        write("g2", load="inline", body="g")
    assert error.value.total_bytes == 101
    assert "w" in {row["name"] for row in error.value.largest}


def test_a_write_that_shrinks_or_keeps_an_over_budget_band_goes_through(write, settings):
    write("a", load="inline", body="x" * 80)
    write("b", load="inline", body="y" * 80)
    settings.MEMADMIN_INLINE_MAX_BYTES = 100  # lowered beneath what the store holds
    doors.write("a", body="x" * 70)  # shrinks
    doors.write("b", description="reworded", tags=["kept"])  # leaves the size alone
    with pytest.raises(InlineBudgetExceeded):
        doors.write("a", body="x" * 71)  # grows, still over
    assert Memory.objects.get(name="a").body == "x" * 70


def test_moving_an_inline_memory_into_the_global_tier_is_measured(
    write, project, other_project, settings
):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("w", project="webdev", load="inline", body="w" * 60)
    write("i", project="infra", load="inline", body="i" * 60)
    # In global it would sit in infra's band too: 60 + 60 = 120.
    with pytest.raises(InlineBudgetExceeded):
        doors.move("w", project="webdev", to=None)
    assert Memory.objects.get(name="w").project_id == project.id


def test_band_totals(write, project, other_project):
    write("g", load="inline", body="g" * 10)
    write("w", project="webdev", load="inline", body="w" * 30)
    write("i", project="infra", load="inline", body="i" * 20)
    totals = budget.inline_totals(timezone.now())
    assert band_total(totals, project.id) == 40
    assert band_total(totals, other_project.id) == 30
    assert band_total(totals, 0) == 40
