"""The tallies per tier and load (BandTally: memories and body bytes by priority; TagTally:
memories per tag), the index of a tier's expired memories, and on SQLite the triggers keeping the tallies
in the writing statement's transaction, then a first count.

Measured at 100,000 memories: a band's index counts and its left-out tags read 2-37 ms of
the band index and the tag table per tier; from the tallies and the expired range, well
under a millisecond. The SQL is frozen here as it was written. Another engine keeps the
tallies its own way (its own migration step: PostgreSQL triggers in PL/pgSQL).
"""

from django.db import migrations, models

TRIGGERS = [
    """CREATE TRIGGER memories_tally_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes)
    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)))
    ON CONFLICT (tier, load, priority) DO UPDATE SET
        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes;
    INSERT INTO memories_tagtally(tier, load, tag, memories)
    SELECT coalesce(new.project_id, 0), new.load, value, 1 FROM json_each(new.tags) WHERE true
    ON CONFLICT (tier, load, tag) DO UPDATE SET memories = memories + 1;
END""",
    """CREATE TRIGGER memories_tally_ad AFTER DELETE ON memories_memory BEGIN
    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB))
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;
    DELETE FROM memories_bandtally
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;
    UPDATE memories_tagtally SET memories = memories - (
        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag
    )
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load
      AND tag IN (SELECT value FROM json_each(old.tags));
    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;
END""",
    """CREATE TRIGGER memories_tally_au
AFTER UPDATE OF project_id, load, priority, body, tags ON memories_memory
WHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load
  OR old.priority IS NOT new.priority OR old.body IS NOT new.body OR old.tags IS NOT new.tags
BEGIN
    UPDATE memories_bandtally SET memories = memories - 1, body_bytes = body_bytes - length(CAST(old.body AS BLOB))
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority;
    DELETE FROM memories_bandtally
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND priority = old.priority AND memories <= 0;
    UPDATE memories_tagtally SET memories = memories - (
        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagtally.tag
    )
    WHERE tier = coalesce(old.project_id, 0) AND load = old.load
      AND tag IN (SELECT value FROM json_each(old.tags));
    DELETE FROM memories_tagtally WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND memories <= 0;
    INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes)
    VALUES (coalesce(new.project_id, 0), new.load, new.priority, 1, length(CAST(new.body AS BLOB)))
    ON CONFLICT (tier, load, priority) DO UPDATE SET
        memories = memories + 1, body_bytes = body_bytes + excluded.body_bytes;
    INSERT INTO memories_tagtally(tier, load, tag, memories)
    SELECT coalesce(new.project_id, 0), new.load, value, 1 FROM json_each(new.tags) WHERE true
    ON CONFLICT (tier, load, tag) DO UPDATE SET memories = memories + 1;
END""",
]
DROP_TRIGGERS = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in ["memories_tally_ai", "memories_tally_ad", "memories_tally_au"]
]
FILL = [
    "DELETE FROM memories_bandtally",
    """INSERT INTO memories_bandtally(tier, load, priority, memories, body_bytes)
SELECT coalesce(project_id, 0), load, priority, count(*), coalesce(sum(length(CAST(body AS BLOB))), 0) FROM memories_memory GROUP BY 1, 2, 3""",
    "DELETE FROM memories_tagtally",
    """INSERT INTO memories_tagtally(tier, load, tag, memories)
SELECT coalesce(m.project_id, 0), m.load, j.value, count(*) FROM memories_memory m, json_each(m.tags) j GROUP BY 1, 2, 3""",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in [*TRIGGERS, *FILL]:
        schema_editor.execute(statement)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in DROP_TRIGGERS:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0009_postgresql_search"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="BandTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tier", models.BigIntegerField()),
                ("load", models.CharField(max_length=6)),
                ("priority", models.IntegerField()),
                ("memories", models.BigIntegerField(default=0)),
                ("body_bytes", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="TagTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tier", models.BigIntegerField()),
                ("load", models.CharField(max_length=6)),
                ("tag", models.TextField()),
                ("memories", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["tier", "expires_at", "load"], name="memory_tier_expiry"),
        ),
        migrations.AddConstraint(
            model_name="bandtally",
            constraint=models.UniqueConstraint(
                fields=("tier", "load", "priority"), name="band_tally_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="tagtally",
            constraint=models.UniqueConstraint(
                fields=("tier", "load", "tag"), name="tag_tally_once"
            ),
        ),
        migrations.RunPython(install, uninstall),
    ]
