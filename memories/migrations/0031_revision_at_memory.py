"""The revisions' time index holds the memory too: the memories changed since a moment are read
off it alone (the agent view as it stood then, memories.reads.past_view); it serves the audit
log's time filters as the index it replaces did."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0030_never_read_tallies"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="revision",
            name="revision_at",
        ),
        migrations.AddIndex(
            model_name="revision",
            index=models.Index(fields=["at", "memory_id"], name="revision_at_memory"),
        ),
    ]
