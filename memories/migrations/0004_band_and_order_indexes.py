"""Indexes measured by bench/run.py at 100,000 memories.

memory_band serves what agent_view reads of a band, a tier at a time in index order with
the expiry on the index (a tier view: 365 ms of SQL before, the budget report 5.2 s). The
index order indexes end in the id, as the order does: without it a first page of one row
was sorted from the whole table (70 ms against 0.01 ms). reference_target_memory lets
`referencing` and backlinks read the citing ids off the index alone.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0003_history"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_tier_order",
        ),
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_index_order",
        ),
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_load_tier",
        ),
        migrations.RemoveIndex(
            model_name="reference",
            name="reference_target",
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                fields=["tier", "priority", "-created_at", "-id"], name="memory_tier_order"
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                fields=["priority", "-created_at", "-id"], name="memory_index_order"
            ),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                fields=["load", "tier", "priority", "-created_at", "-id", "expires_at"],
                name="memory_band",
            ),
        ),
        migrations.AddIndex(
            model_name="reference",
            index=models.Index(fields=["target", "memory"], name="reference_target_memory"),
        ),
    ]
