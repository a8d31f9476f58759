"""The ranking's weight is written once (memories.engine.ranking.Formula): the SQL the store's
engine puts in its ranking statement gives, through the real connection, what the Python
formula gives, over a grid of priorities, read counts, ages and relevances. The suite runs
on either engine, so this holds each engine's SQL to the one formula."""

import datetime as dt
import itertools
from importlib import import_module

import pytest
from django.db import connection

from memories.models import Memory
from memories.reads.search import FORMULA

HALF_LIFE_DAYS = 30.0
PRIORITIES = (0, 1, 2, 5, 50)  # 0-1 never fade
READ_COUNTS = (0, 1, 9, 1000)
AGES_DAYS = (-2, 0, 1, 29, 365)  # -2: verified ahead of the clock, which counts as now
RELEVANCES = (0.0, 0.25, 1.0)


def _julian_day(moment: dt.datetime) -> float:
    return moment.timestamp() / 86400 + 2440587.5


def test_the_engines_weight_is_the_formulas(write):
    weighed = import_module(f"memories.engine.{connection.vendor}.search").WEIGHED
    statement = (
        f"SELECT CAST(%s AS float8) * {FORMULA.weight_sql(weighed)}"
        f" FROM {weighed.table} WHERE {weighed.table}.id = %s"
    )
    memory = write("weighed").memory
    # Whole seconds: SQLite's julianday() reads a time to the millisecond.
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    checked = 0
    for priority, reads, age in itertools.product(PRIORITIES, READ_COUNTS, AGES_DAYS):
        verified_at = now - dt.timedelta(days=age)
        Memory.objects.filter(id=memory.id).update(
            priority=priority, read_count=reads, verified_at=verified_at
        )
        weight = FORMULA.weight(priority, reads, verified_at, now, HALF_LIFE_DAYS)
        for relevance in RELEVANCES:
            with connection.cursor() as cursor:
                cursor.execute(statement, [relevance, _julian_day(now), HALF_LIFE_DAYS, memory.id])
                (found,) = cursor.fetchone()
            assert found == pytest.approx(relevance * weight, rel=1e-9, abs=1e-12), (
                priority,
                reads,
                age,
                relevance,
            )
            checked += 1
    assert checked == len(PRIORITIES) * len(READ_COUNTS) * len(AGES_DAYS) * len(RELEVANCES)


def test_the_weight_is_the_seeds_blend():
    """The formula's shape, in numbers: importance falls with priority and rises with reads,
    freshness halves toward its floor over the half-life, and priority 0-1 never fades."""
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    old = now - dt.timedelta(days=HALF_LIFE_DAYS)

    def weight(priority, reads, verified_at):
        return FORMULA.weight(priority, reads, verified_at, now, HALF_LIFE_DAYS)

    assert weight(0, 0, now) == 1.0
    assert weight(1, 0, old) == weight(1, 0, now)
    assert weight(5, 0, now) < weight(2, 0, now)
    assert weight(5, 100, now) > weight(5, 0, now)
    fading = weight(5, 0, old) / weight(5, 0, now)
    assert fading == pytest.approx(FORMULA.freshness_floor + (1 - FORMULA.freshness_floor) / 2)
