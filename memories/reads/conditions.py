"""The filters of a read as one condition on memories_memory's columns, for the plain
statements of a search (memories.reads.search) and of the neighbours by meaning
(memories.reads.meaning): written from the same code the listing narrows by
(MemoryFilters.apply), so a search and a listing admit the same memories."""

import datetime as dt
from dataclasses import dataclass

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DEFAULT_DB_ALIAS, connections

from memories.models import Memory
from memories.reads import rows as memory_rows
from memories.reads.filters import MemoryFilters


@dataclass
class Condition:
    where: str | None  # None: every memory
    params: list


def of(
    filters: MemoryFilters, now: dt.datetime, ids=None, from_id: int | None = None
) -> Condition | None:
    """The filters' condition on memories_memory, from the same code the listing uses (and
    the memory among `ids`, when given; from the id `from_id` on, when given).

    None when the filters admit nothing.
    """
    if ids is None and from_id is None and not filters.asks_anything:
        # Nothing but the caller's reach narrows: its tiers, written out. A search asks for
        # this condition three times, and compiling it each time cost a one-project grant's
        # search a tenth more than the whole store's (bench/results/2026-12-05-grants2).
        return within_tiers(filters.band_tiers())
    # The filters narrow to the caller's reach (band_tiers): the reached manager would add
    # the same condition again.
    memories = Memory.every.all() if ids is None else Memory.every.filter(id__in=ids)
    if from_id is not None:
        memories = memories.filter(id__gte=from_id)
    query = filters.apply(memories, now).query
    if not query.where:
        return Condition(None, [])
    try:
        compiler = query.get_compiler(connection=connections[DEFAULT_DB_ALIAS])
        where, params = compiler.compile(query.where)
    except EmptyResultSet:
        return None
    except FullResultSet:
        return Condition(None, [])
    return Condition(f"({where})", list(params))


def within_tiers(tiers: tuple[int, ...] | None) -> Condition | None:
    """The condition that a memory is of one of `tiers` (None: any; none: nothing admitted)."""
    if tiers is None:
        return Condition(None, [])
    if not tiers:
        return None
    marks = ", ".join(["%s"] * len(tiers))
    return Condition(f'({memory_rows.M}."tier" IN ({marks}))', list(tiers))
