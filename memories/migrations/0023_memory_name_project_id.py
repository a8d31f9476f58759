"""memory_name_project holds the memory's id beside its name and project on PostgreSQL, so the
graph's links query (memories.reads.graph) resolves each reference by band in an index-only
scan; without it, every name found was fetched from the table for its id. Measured at 100,000
memories, the store-wide graph's newest 3,000 references, 20 runs interleaved with the
index-only scan turned off (bench/results/2026-12-02-graph-8/): 13,670 buffers read and
8.7 ms to execute without, 10,568 and 7.1 ms with. SQLite's indexes hold the row id already:
there the id, the row id's alias, adds nothing to what the index held. A key column rather
than an `include`, which SQLite would ignore with a system check warning at every command."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0022_postgresql_search_table"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="memory",
            name="memory_name_project",
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["name", "project", "id"], name="memory_name_project"),
        ),
    ]
