from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0006_memory_vectors"),
        ("memories", "0006_tag_folded"),
    ]

    operations = []
