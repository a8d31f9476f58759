import datetime as dt

import pytest
from django.utils import timezone

from memories.models import Memory
from memories.reads.filters import MemoryFilters
from memories.reads.search import search


def set_fields(memory: Memory, **values) -> Memory:
    """Move read counts and dates as the agent's reads and time passing would."""
    Memory.objects.filter(id=memory.id).update(**values)
    memory.refresh_from_db()
    return memory


def days_ago(days: float) -> dt.datetime:
    return timezone.now() - dt.timedelta(days=days)


@pytest.fixture
def find(db):
    """search() with no filters unless given, by words unless a mode is given; returns the
    result."""

    def _find(*queries, filters=None, mode="words", **options):
        return search(list(queries), filters or MemoryFilters(), mode=mode, **options)

    return _find


def names(result) -> list[str]:
    return [hit.memory.name for hit in result.hits]
