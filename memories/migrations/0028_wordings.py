"""Each memory's wording key (Wording: a digest of its description's words) and the count of
each key (WordingTally), filled from the memories, then kept by triggers on each engine (the
rows and the counts) and by the doors (the keys). The SQL is frozen here as memories.engine's
sqlite and postgresql index modules wrote it, and the key as rules.similarity.wording made it."""

import hashlib
import re

import django.db.models.deletion
from django.db import migrations, models

from memories.engine.operations import RunSQLOn

SQLITE_SQL = [
    "INSERT INTO memories_wording (memory_id, wording) SELECT id, NULL FROM memories_memory",
    "CREATE TRIGGER memories_wording_ai AFTER INSERT ON memories_memory\nBEGIN\n    INSERT INTO memories_wording (memory_id, wording) VALUES (new.id, NULL)\n    ON CONFLICT (memory_id) DO UPDATE SET wording = NULL;\nEND",
    "CREATE TRIGGER memories_wording_au AFTER UPDATE OF description ON memories_memory\nWHEN old.description IS NOT new.description\nBEGIN\n    UPDATE memories_wording SET wording = NULL WHERE memory_id = new.id;\nEND",
    "CREATE TRIGGER memories_wording_ad AFTER DELETE ON memories_memory\nBEGIN\n    DELETE FROM memories_wording WHERE memory_id = old.id;\nEND",
    "CREATE TRIGGER memories_wording_tally_ai AFTER INSERT ON memories_wording\nBEGIN\n    INSERT INTO memories_wordingtally (wording, memories) SELECT new.wording, 1\n    WHERE new.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = new.wording AND memories <= 0;\nEND",
    "CREATE TRIGGER memories_wording_tally_au AFTER UPDATE OF wording ON memories_wording\nWHEN old.wording IS NOT new.wording\nBEGIN\n    INSERT INTO memories_wordingtally (wording, memories) SELECT old.wording, -1\n    WHERE old.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = old.wording AND memories <= 0;\n    INSERT INTO memories_wordingtally (wording, memories) SELECT new.wording, 1\n    WHERE new.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = new.wording AND memories <= 0;\nEND",
    "CREATE TRIGGER memories_wording_tally_ad AFTER DELETE ON memories_wording\nBEGIN\n    INSERT INTO memories_wordingtally (wording, memories) SELECT old.wording, -1\n    WHERE old.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = old.wording AND memories <= 0;\nEND",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_wording_ai",
    "DROP TRIGGER IF EXISTS memories_wording_au",
    "DROP TRIGGER IF EXISTS memories_wording_ad",
    "DROP TRIGGER IF EXISTS memories_wording_tally_ai",
    "DROP TRIGGER IF EXISTS memories_wording_tally_au",
    "DROP TRIGGER IF EXISTS memories_wording_tally_ad",
]
POSTGRESQL_SQL = [
    "CREATE OR REPLACE FUNCTION memories_wording_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'INSERT' THEN\n    INSERT INTO memories_wording (memory_id, wording) VALUES (NEW.id, NULL)\n    ON CONFLICT (memory_id) DO UPDATE SET wording = NULL;\n    ELSIF TG_OP = 'DELETE' THEN\n    DELETE FROM memories_wording WHERE memory_id = OLD.id;\n    ELSE\n    UPDATE memories_wording SET wording = NULL WHERE memory_id = NEW.id;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE OR REPLACE FUNCTION memories_wording_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP IN ('UPDATE', 'DELETE') THEN\n    INSERT INTO memories_wordingtally (wording, memories) SELECT OLD.wording, -1\n    WHERE OLD.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = OLD.wording AND memories <= 0;\n    END IF;\n    IF TG_OP IN ('INSERT', 'UPDATE') THEN\n    INSERT INTO memories_wordingtally (wording, memories) SELECT NEW.wording, 1\n    WHERE NEW.wording IS NOT NULL\n    ON CONFLICT (wording) DO UPDATE SET memories = memories_wordingtally.memories + excluded.memories;\n    DELETE FROM memories_wordingtally WHERE wording = NEW.wording AND memories <= 0;\n    END IF;\n    RETURN NULL;\nEND $$",
    "INSERT INTO memories_wording (memory_id, wording) SELECT id, NULL FROM memories_memory",
    "CREATE TRIGGER memories_wording_ai AFTER INSERT ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_wording_keep()",
    "CREATE TRIGGER memories_wording_au AFTER UPDATE OF description ON memories_memory\nFOR EACH ROW WHEN (OLD.description IS DISTINCT FROM NEW.description)\nEXECUTE FUNCTION memories_wording_keep()",
    "CREATE TRIGGER memories_wording_ad AFTER DELETE ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_wording_keep()",
    "CREATE TRIGGER memories_wording_tally_ai AFTER INSERT ON memories_wording\nFOR EACH ROW EXECUTE FUNCTION memories_wording_tally_keep()",
    "CREATE TRIGGER memories_wording_tally_au AFTER UPDATE OF wording ON memories_wording\nFOR EACH ROW WHEN (OLD.wording IS DISTINCT FROM NEW.wording)\nEXECUTE FUNCTION memories_wording_tally_keep()",
    "CREATE TRIGGER memories_wording_tally_ad AFTER DELETE ON memories_wording\nFOR EACH ROW EXECUTE FUNCTION memories_wording_tally_keep()",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_wording_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_wording_au ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_wording_ad ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_wording_tally_ai ON memories_wording",
    "DROP TRIGGER IF EXISTS memories_wording_tally_au ON memories_wording",
    "DROP TRIGGER IF EXISTS memories_wording_tally_ad ON memories_wording",
    "DROP FUNCTION IF EXISTS memories_wording_keep()",
    "DROP FUNCTION IF EXISTS memories_wording_tally_keep()",
]


_WORD = re.compile(r"\w+")


def _key(description: str) -> str:
    words = " ".join(_WORD.findall(description.lower()))
    return hashlib.blake2b(words.encode(), digest_size=16).hexdigest() if words else ""


def fill_keys(apps, schema_editor):
    Memory = apps.get_model("memories", "Memory")
    Wording = apps.get_model("memories", "Wording")
    rows = Memory.objects.order_by("id").values_list("id", "description")
    batch = []
    for memory_id, description in rows.iterator(chunk_size=5000):
        batch.append(Wording(memory_id=memory_id, wording=_key(description)))
        if len(batch) == 5000:
            _store(Wording, batch)
            batch = []
    _store(Wording, batch)


def _store(Wording, batch):
    Wording.objects.bulk_create(
        batch, update_conflicts=True, unique_fields=["memory"], update_fields=["wording"]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0027_reference_citer_order"),
    ]

    operations = [
        migrations.CreateModel(
            name="Wording",
            fields=[
                (
                    "memory",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="memories.memory",
                    ),
                ),
                ("wording", models.CharField(max_length=32, null=True)),
            ],
            options={
                "indexes": [models.Index(fields=["wording"], name="wording_key")],
            },
        ),
        migrations.CreateModel(
            name="WordingTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("wording", models.CharField(max_length=32, unique=True)),
                ("memories", models.BigIntegerField()),
            ],
            options={
                "indexes": [
                    models.Index(
                        condition=models.Q(("memories__gte", 2)),
                        fields=["wording"],
                        name="wording_shared",
                    )
                ],
            },
        ),
        RunSQLOn("sqlite", SQLITE_SQL, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRESQL_SQL, POSTGRESQL_REVERSE),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]
