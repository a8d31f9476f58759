"""The tag filter finds a tag in any case: an index on the tag folded to lower case."""

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0005_memory_name_project"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="tag",
            index=models.Index(django.db.models.functions.text.Lower("tag"), name="tag_folded"),
        ),
    ]
