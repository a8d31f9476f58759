from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0007_merge_vectors_and_tag_folded"),
        ("memories", "0007_project_revision"),
    ]

    operations = []
