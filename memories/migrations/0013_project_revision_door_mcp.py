from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0012_revision_door_mcp"),
    ]

    operations = [
        migrations.AlterField(
            model_name="projectrevision",
            name="door",
            field=models.CharField(
                choices=[
                    ("page", "page"),
                    ("bulk", "bulk"),
                    ("api", "API"),
                    ("mcp", "MCP"),
                    ("command", "command"),
                    ("import", "import"),
                    ("direct", "direct"),
                ],
                max_length=8,
            ),
        ),
    ]
