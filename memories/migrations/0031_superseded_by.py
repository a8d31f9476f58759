"""A memory superseded by another names it (Memory.superseded_by). A nullable column with no
default: SQLite adds it in place (ALTER TABLE ADD COLUMN), without remaking the table its
triggers name, and PostgreSQL likewise; the partial index finds what a memory supersedes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0030_never_read_tallies"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="superseded_by",
            field=models.CharField(blank=True, max_length=128, null=True),
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("superseded_by__isnull", False)),
                fields=["superseded_by", "tier"],
                name="memory_superseded_by",
            ),
        ),
    ]
