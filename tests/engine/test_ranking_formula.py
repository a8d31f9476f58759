"""The ranking's weight is written once (memories.engine.ranking.Formula): the SQL the store's
engine puts in its ranking statement gives, through the real connection, what the Python
formula gives, over a grid of priorities, read counts, ages and relevances. The suite runs
on either engine, so this holds each engine's SQL to the one formula."""

import datetime as dt
import itertools
import math
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


FREQUENCIES = (0.0, 1.0, 4.0, 10.0, 16.4, 100.0)  # in the column weights' units
LENGTH_RATIOS = (0.1, 1.0, 3.5)


@pytest.mark.engine("postgresql")
def test_postgresqls_word_relevance_is_the_formulas(db):
    """PostgreSQL weighs each word of a query by its idf (a number the statement carries,
    Formula.idf) and saturated frequency in SQL of its own (SQLite's FTS5 has bm25()): that
    SQL gives what the Python formula gives."""
    checked = 0
    for idf, frequency, ratio in itertools.product((1e-6, 0.7, 7.9), FREQUENCIES, LENGTH_RATIOS):
        sql = FORMULA.term_relevance_sql("%s::float8", "%s::float8", "%s::float8")
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {sql}", [idf, frequency, ratio])  # each written once
            (found,) = cursor.fetchone()
        expected = FORMULA.term_relevance(idf, frequency, ratio)
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-15), (idf, frequency, ratio)
        checked += 1
    assert checked == 3 * len(FREQUENCIES) * len(LENGTH_RATIOS)


def test_the_word_relevance_is_bm25s():
    """Okapi BM25 as FTS5 computes it: a rarer word weighs more, a word most memories hold
    next to nothing; a word's weight grows with its frequency but saturates, and is less in
    a memory longer than most."""
    assert FORMULA.idf(2760, 3) > FORMULA.idf(2760, 300) > FORMULA.idf(2760, 1300) > 0.05
    assert FORMULA.idf(2760, 2000) == FORMULA.idf(2760, 2760) == 1e-6
    assert FORMULA.idf(2760, 3) == pytest.approx(math.log(2757.5 / 3.5))
    idf = FORMULA.idf(2760, 30)

    def term(frequency, ratio=1.0):
        return FORMULA.term_relevance(idf, frequency, ratio)

    assert term(0) == 0
    assert term(1) < term(4) < term(10) < term(100) < idf * (FORMULA.saturation + 1)
    assert term(1) == pytest.approx(idf)  # one occurrence in a memory of average length
    assert term(100) / term(10) < 1.2
    assert term(1, 3.5) < term(1) < term(1, 0.1)
