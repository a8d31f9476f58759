import datetime as dt
import random

import pytest
from django.utils import timezone

from memories import doors
from memories.models import Memory


@pytest.fixture
def varied(db, project):
    """40 memories with tied priorities, tied creation times and some expiries."""
    rng = random.Random(7)
    base = timezone.now() - dt.timedelta(days=30)
    for number in range(40):
        doors.write(
            f"m{number:02d}",
            project="webdev" if number % 3 == 0 else None,
            description=f"note {number}",
            priority=rng.choice([0, 1, 1, 5, 5, 5, 9]),
        )
    for memory in Memory.objects.all():
        created = base + dt.timedelta(hours=rng.choice([0, 1, 2, 3]))  # many ties
        expires = rng.choice([None, None, base + dt.timedelta(days=rng.randint(1, 60))])
        Memory.objects.filter(id=memory.id).update(
            created_at=created,
            verified_at=created + dt.timedelta(hours=rng.randint(0, 5)),
            expires_at=expires,
            read_count=rng.randint(0, 3),
        )
