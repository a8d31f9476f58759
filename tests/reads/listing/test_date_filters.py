"""The date filters: each moment's since/until as a date, an RFC 3339 moment or a period; the
changed-by filter from the revisions; their words; the month histograms of the facets."""

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from memories.models import Memory
from memories.reads import facets, find
from memories.reads.filters import DATES, MemoryFilterForm, MemoryFilters
from memories.writes import doors, history

NOW = timezone.now()


def _dated(name: str, days_ago: int, **more) -> None:
    """A memory whose every moment is `days_ago` days back (its expiry as far ahead)."""
    doors.write(name, description=f"about {name}")
    moment = NOW - dt.timedelta(days=days_ago)
    Memory.objects.filter(name=name).update(
        created_at=moment,
        updated_at=moment,
        verified_at=moment,
        last_read_at=moment,
        expires_at=NOW + dt.timedelta(days=days_ago),
        **more,
    )


@pytest.fixture
def dated(db):
    _dated("fresh", 2)
    _dated("month-old", 30)
    _dated("year-old", 400)


def _names(**params) -> list[str]:
    form = MemoryFilterForm(params)
    assert form.is_valid(), form.errors
    found = find.find(find.Question.of(form), find.EVERY, now=NOW)
    return sorted(memory.name for memory in found.memories)


@pytest.mark.parametrize("name", [name for name, _, _ in DATES if name != "expires"])
def test_each_past_moment_since_and_until_a_period(dated, name):
    assert _names(**{f"{name}_since": "7d"}) == ["fresh"]
    assert _names(**{f"{name}_until": "7d"}) == ["month-old", "year-old"]
    assert _names(**{f"{name}_since": "90d", f"{name}_until": "7d"}) == ["month-old"]


def test_the_expiry_counts_its_periods_forward(dated):
    assert _names(expires_until="7d") == ["fresh"]
    assert _names(expires_since="7d") == ["month-old", "year-old"]


def test_a_date_is_the_whole_day_and_a_moment_is_exact(dated):
    day = (NOW - dt.timedelta(days=30)).date().isoformat()
    assert _names(recorded_since=day, recorded_until=day) == ["month-old"]
    moment = (NOW - dt.timedelta(days=30)).isoformat()
    assert _names(recorded_since=moment, recorded_until=moment) == ["month-old"]
    assert _names(recorded_since=moment.replace("+00:00", "Z")) == ["fresh", "month-old"]


def test_a_memory_never_read_has_no_last_read(db):
    doors.write("unread", description="never read")
    doors.write("read-once", description="read once")
    doors.read("read-once")
    assert _names(read_since="1d") == ["read-once"]
    assert _names(read_until="2999-01-01") == ["read-once"]


@pytest.mark.parametrize(
    ("params", "sentence"),
    [
        (
            {"recorded_since": "last week"},
            "recorded_since: a date (2026-11-24), an RFC 3339 moment (2026-11-24T15:00:00Z) "
            "or a period from now (7d) is expected, not 'last week'.",
        ),
        ({"verified_until": "2026-02-30"}, "verified_until: '2026-02-30' is not a calendar date."),
        ({"read_since": "0d"}, "read_since: a date (2026-11-24)"),
        ({"changed_by": "token:abc"}, "changed_by: a username or token:<id>"),
    ],
)
def test_bad_values_are_one_sentence(db, params, sentence):
    form = MemoryFilterForm(params)
    assert not form.is_valid()
    assert form.first_error().startswith(sentence)


def test_the_words_of_the_summary(dated):
    filters = MemoryFilters(recorded_since="7d", verified_until="2026-11-01", expires_until="2w")
    assert filters.labels() == [
        "recorded in the last 7 days",
        "verified until 2026-11-01",
        "expiring within 2 weeks",
    ]


def test_changed_by_a_user_or_a_token_from_the_revisions(db):
    alice = User.objects.create_user("alice")
    with history.acting(door=history.PAGE, user=alice):
        doors.write("by-alice", description="written by alice")
    doors.write("by-nobody", description="written directly")

    class Token:
        pk, prefix = 41, "abc"

    with history.acting(door=history.API, user=alice, token=Token()):
        doors.write("by-token", description="written with a token")
    assert _names(changed_by="alice") == ["by-alice", "by-token"]
    assert _names(changed_by="token:41") == ["by-token"]
    assert _names(changed_by="nobody") == []
    assert MemoryFilters(changed_by="token:41").labels() == ["changed with token 41"]


def test_the_facets_count_each_moment_by_month_in_date_order(db):
    doors.write("a", description="a")
    doors.write("b", description="b")
    doors.write("c", description="c")
    january = dt.datetime(2026, 1, 15, 12, tzinfo=dt.UTC)
    march = dt.datetime(2026, 3, 31, 23, tzinfo=dt.UTC)
    Memory.objects.filter(name="a").update(created_at=march)
    Memory.objects.filter(name__in=["b", "c"]).update(created_at=january)
    found = {facet.key: facet for facet in facets.month_facets(MemoryFilters(), NOW)}
    recorded = found["recorded_since"]
    assert [(v.value, v.label, v.count, v.also) for v in recorded.values] == [
        ("2026-01-01", "2026-01", 2, (("recorded_until", "2026-01-31"),)),
        ("2026-03-01", "2026-03", 1, (("recorded_until", "2026-03-31"),)),
    ]
    assert found["read_since"].values == [], "no memory was read: no month to show"
    assert _names(recorded_since="2026-01-01", recorded_until="2026-01-31") == ["b", "c"]
