import datetime as dt

import pytest
from django.utils import timezone

from memories.models import Memory


@pytest.fixture
def expire(db):
    """Put a memory's expiry in the past, past the doors (as time passing would)."""

    def _expire(memory: Memory) -> Memory:
        Memory.objects.filter(id=memory.id).update(expires_at=timezone.now() - dt.timedelta(days=1))
        memory.refresh_from_db()
        return memory

    return _expire


@pytest.fixture
def reads(db):
    """Set a memory's read count, as the agent's reads would have."""

    def _reads(memory: Memory, count: int) -> Memory:
        Memory.objects.filter(id=memory.id).update(read_count=count)
        memory.refresh_from_db()
        return memory

    return _reads
