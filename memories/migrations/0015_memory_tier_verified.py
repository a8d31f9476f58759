from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0014_memory_read_order"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["tier", "verified_at"], name="memory_tier_verified"),
        ),
    ]
