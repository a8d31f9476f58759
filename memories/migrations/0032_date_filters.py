"""The date filters: when the agent's read door last read a memory (a nullable column with no
default, added in place on SQLite as 0031's), and the ranges of the recorded, updated and last
read moments as indexes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0031_superseded_by"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="last_read_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["created_at"], name="memory_created"),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["updated_at"], name="memory_updated"),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("last_read_at__isnull", False)),
                fields=["last_read_at"],
                name="memory_last_read",
            ),
        ),
    ]
