"""Give a copy of a bench store near-copies through the write doors: for 400 memories picked
with seed 1, a new memory with the same description (in capitals with a "!" for a third of
them, so the same words): the first 300 in their original's tier, the other 100 global
(a project's original then has a global copy: a shadow).

Run with MEMADMIN_DATA_DIR set to the copy and the checkout on PYTHONPATH."""

import os
import random

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()

from memories.models import Memory  # noqa: E402
from memories.writes import doors  # noqa: E402

rng = random.Random(1)
ids = list(Memory.objects.values_list("id", flat=True))
picked = Memory.objects.select_related("project").filter(id__in=rng.sample(ids, 400))
for n, memory in enumerate(picked):
    description = memory.description if n % 3 else memory.description.upper() + "!"
    project = memory.project.name if (memory.project and n < 300) else None
    doors.write(f"copy-{n}", description=description, project=project)
print("written", Memory.objects.filter(name__startswith="copy-").count())
