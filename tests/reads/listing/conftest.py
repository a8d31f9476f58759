import datetime as dt
import random

import pytest
from django.utils import timezone

from memories.models import Memory


@pytest.fixture
def varied(db, project):
    """40 memories with tied priorities, tied creation times and some expiries.

    Inserted in one statement (the triggers still index them): these tests are about
    ordering and paging, not about the write door, and the door would take a second.
    """
    rng = random.Random(7)
    base = timezone.now() - dt.timedelta(days=30)
    rows = []
    for number in range(40):
        created = base + dt.timedelta(hours=rng.choice([0, 1, 2, 3]))  # many ties
        rows.append(
            Memory(
                name=f"m{number:02d}",
                project=project if number % 3 == 0 else None,
                description=f"note {number}",
                priority=rng.choice([0, 1, 1, 5, 5, 5, 9]),
                load=rng.choice(["index", "index", "search"]),
                created_at=created,
                updated_at=created,
                verified_at=created + dt.timedelta(hours=rng.randint(0, 5)),
                expires_at=rng.choice([None, None, base + dt.timedelta(days=rng.randint(1, 60))]),
                read_count=rng.randint(0, 3),
                tags=[["infra"], ["Infra", "infra"], [], ["ops"]][number % 4],
            )
        )
    Memory.objects.bulk_create(rows)
