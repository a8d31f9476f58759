"""The index order's index with the tier at its end, measured at 100,000 memories on SQLite
(bench/results/2026-12-05-grants3).

A one-project grant's page of the list asks `tier IN (0, 1)` in index order: SQLite walks this
index and, without the tier on it, read the row of every entry to test it, the other tiers'
too (105 µs against the whole store's 87 for the first page); with it, it tests the entry and
reads only the rows it keeps (94 µs). The index grows by the tier's byte an entry (4.06 MB to
4.23 MB built fresh); a memory moved to another tier now moves its entry here too.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0035_memory_state"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_index_order",
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                fields=["priority", "-created_at", "-id", "tier"], name="memory_index_order"
            ),
        ),
    ]
