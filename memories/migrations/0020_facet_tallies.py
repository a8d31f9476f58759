"""The tallies the list's facets read (VerifiedTally and TagVerifiedTally: memories per tier,
load or tag and day of verification; TagPairTally: memories per tier and pair of tags), the
triggers keeping them in the writing statement's transaction on each engine, then a first
count. The SQL is frozen here as memories.engine's sqlite and postgresql index modules wrote
it."""

from django.db import migrations, models

from memories.engine.operations import RunSQLOn

SQLITE_SQL = [
    "CREATE TRIGGER memories_facet_tally_ai AFTER INSERT ON memories_memory\nBEGIN\n    INSERT INTO memories_verifiedtally(tier, load, day, memories)\n    VALUES (coalesce(new.project_id, 0), new.load, date(new.verified_at), 1)\n    ON CONFLICT (tier, load, day) DO UPDATE SET memories = memories + 1;\n    INSERT INTO memories_tagverifiedtally(tier, tag, day, memories)\n    SELECT coalesce(new.project_id, 0), value, date(new.verified_at), 1 FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tag, tier, day) DO UPDATE SET memories = memories + 1;\n    INSERT INTO memories_tagpairtally(tier, tag, other, memories)\n    SELECT coalesce(new.project_id, 0), a.value, b.value, 1 FROM json_each(new.tags) AS a, json_each(new.tags) AS b WHERE a.value != b.value\n    ON CONFLICT (tag, tier, other) DO UPDATE SET memories = memories + 1;\nEND",
    "CREATE TRIGGER memories_facet_tally_ad AFTER DELETE ON memories_memory\nBEGIN\n    UPDATE memories_verifiedtally SET memories = memories - 1\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND day = date(old.verified_at);\n    DELETE FROM memories_verifiedtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND day = date(old.verified_at) AND memories <= 0;\n    UPDATE memories_tagverifiedtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagverifiedtally.tag\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND day = date(old.verified_at) AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagverifiedtally\n    WHERE tier = coalesce(old.project_id, 0) AND day = date(old.verified_at) AND tag IN (SELECT value FROM json_each(old.tags))\n      AND memories <= 0;\n    UPDATE memories_tagpairtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS a, json_each(old.tags) AS b\n        WHERE a.value = memories_tagpairtally.tag AND b.value = memories_tagpairtally.other\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagpairtally\n    WHERE tier = coalesce(old.project_id, 0) AND tag IN (SELECT value FROM json_each(old.tags)) AND memories <= 0;\nEND",
    "CREATE TRIGGER memories_day_tally_au\nAFTER UPDATE OF project_id, load, verified_at, tags ON memories_memory\nWHEN old.project_id IS NOT new.project_id OR old.load IS NOT new.load\n  OR old.verified_at IS NOT new.verified_at OR old.tags IS NOT new.tags\nBEGIN\n    UPDATE memories_verifiedtally SET memories = memories - 1\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND day = date(old.verified_at);\n    DELETE FROM memories_verifiedtally\n    WHERE tier = coalesce(old.project_id, 0) AND load = old.load AND day = date(old.verified_at) AND memories <= 0;\n    UPDATE memories_tagverifiedtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS j WHERE j.value = memories_tagverifiedtally.tag\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND day = date(old.verified_at) AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagverifiedtally\n    WHERE tier = coalesce(old.project_id, 0) AND day = date(old.verified_at) AND tag IN (SELECT value FROM json_each(old.tags))\n      AND memories <= 0;\n    INSERT INTO memories_verifiedtally(tier, load, day, memories)\n    VALUES (coalesce(new.project_id, 0), new.load, date(new.verified_at), 1)\n    ON CONFLICT (tier, load, day) DO UPDATE SET memories = memories + 1;\n    INSERT INTO memories_tagverifiedtally(tier, tag, day, memories)\n    SELECT coalesce(new.project_id, 0), value, date(new.verified_at), 1 FROM json_each(new.tags) WHERE true\n    ON CONFLICT (tag, tier, day) DO UPDATE SET memories = memories + 1;\nEND",
    "CREATE TRIGGER memories_pair_tally_au AFTER UPDATE OF project_id, tags ON memories_memory\nWHEN old.project_id IS NOT new.project_id OR old.tags IS NOT new.tags\nBEGIN\n    UPDATE memories_tagpairtally SET memories = memories - (\n        SELECT count(*) FROM json_each(old.tags) AS a, json_each(old.tags) AS b\n        WHERE a.value = memories_tagpairtally.tag AND b.value = memories_tagpairtally.other\n    )\n    WHERE tier = coalesce(old.project_id, 0) AND tag IN (SELECT value FROM json_each(old.tags));\n    DELETE FROM memories_tagpairtally\n    WHERE tier = coalesce(old.project_id, 0) AND tag IN (SELECT value FROM json_each(old.tags)) AND memories <= 0;\n    INSERT INTO memories_tagpairtally(tier, tag, other, memories)\n    SELECT coalesce(new.project_id, 0), a.value, b.value, 1 FROM json_each(new.tags) AS a, json_each(new.tags) AS b WHERE a.value != b.value\n    ON CONFLICT (tag, tier, other) DO UPDATE SET memories = memories + 1;\nEND",
    "DELETE FROM memories_verifiedtally",
    "INSERT INTO memories_verifiedtally(tier, load, day, memories) SELECT coalesce(project_id, 0), load, date(verified_at), count(*) FROM memories_memory GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagverifiedtally",
    "INSERT INTO memories_tagverifiedtally(tier, tag, day, memories) SELECT coalesce(m.project_id, 0), j.value, date(m.verified_at), count(*) FROM memories_memory m, json_each(m.tags) j GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagpairtally",
    "INSERT INTO memories_tagpairtally(tier, tag, other, memories) SELECT coalesce(m.project_id, 0), a.value, b.value, count(*) FROM memories_memory m, json_each(m.tags) a, json_each(m.tags) b WHERE a.value != b.value GROUP BY 1, 2, 3",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_facet_tally_ai",
    "DROP TRIGGER IF EXISTS memories_facet_tally_ad",
    "DROP TRIGGER IF EXISTS memories_day_tally_au",
    "DROP TRIGGER IF EXISTS memories_pair_tally_au",
]
POSTGRESQL_SQL = [
    "CREATE OR REPLACE FUNCTION memories_facet_tally_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP IN ('UPDATE', 'DELETE') THEN\n        UPDATE memories_verifiedtally SET memories = memories - 1\n        WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND day = (OLD.verified_at AT TIME ZONE 'UTC')::date;\n        DELETE FROM memories_verifiedtally\n        WHERE tier = coalesce(OLD.project_id, 0) AND load = OLD.load AND day = (OLD.verified_at AT TIME ZONE 'UTC')::date AND memories <= 0;\n        UPDATE memories_tagverifiedtally AS t SET memories = t.memories - gone.n\n        FROM (SELECT value, count(*) AS n FROM jsonb_array_elements_text(OLD.tags)\n              GROUP BY value) AS gone\n        WHERE t.tier = coalesce(OLD.project_id, 0) AND t.day = (OLD.verified_at AT TIME ZONE 'UTC')::date AND t.tag = gone.value;\n        DELETE FROM memories_tagverifiedtally WHERE tier = coalesce(OLD.project_id, 0) AND day = (OLD.verified_at AT TIME ZONE 'UTC')::date AND memories <= 0;\n        IF TG_OP <> 'UPDATE' OR OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.tags IS DISTINCT FROM NEW.tags THEN\n            UPDATE memories_tagpairtally AS t SET memories = t.memories - gone.n\n            FROM (SELECT a.value AS tag, b.value AS other, count(*) AS n FROM jsonb_array_elements_text(OLD.tags) AS a(value), jsonb_array_elements_text(OLD.tags) AS b(value) WHERE a.value <> b.value\n                  GROUP BY a.value, b.value) AS gone\n            WHERE t.tier = coalesce(OLD.project_id, 0) AND t.tag = gone.tag AND t.other = gone.other;\n            DELETE FROM memories_tagpairtally WHERE tier = coalesce(OLD.project_id, 0) AND memories <= 0\n                AND tag IN (SELECT jsonb_array_elements_text(OLD.tags));\n        END IF;\n    END IF;\n    IF TG_OP IN ('INSERT', 'UPDATE') THEN\n        INSERT INTO memories_verifiedtally AS t (tier, load, day, memories)\n        VALUES (coalesce(NEW.project_id, 0), NEW.load, (NEW.verified_at AT TIME ZONE 'UTC')::date, 1)\n        ON CONFLICT (tier, load, day) DO UPDATE SET memories = t.memories + 1;\n        INSERT INTO memories_tagverifiedtally AS t (tier, tag, day, memories)\n        SELECT coalesce(NEW.project_id, 0), value, (NEW.verified_at AT TIME ZONE 'UTC')::date, count(*)\n        FROM jsonb_array_elements_text(NEW.tags) GROUP BY value\n        ON CONFLICT (tag, tier, day) DO UPDATE SET memories = t.memories + excluded.memories;\n        IF TG_OP <> 'UPDATE' OR OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.tags IS DISTINCT FROM NEW.tags THEN\n            INSERT INTO memories_tagpairtally AS t (tier, tag, other, memories)\n            SELECT coalesce(NEW.project_id, 0), a.value, b.value, count(*) FROM jsonb_array_elements_text(NEW.tags) AS a(value), jsonb_array_elements_text(NEW.tags) AS b(value) WHERE a.value <> b.value GROUP BY a.value, b.value\n            ON CONFLICT (tag, tier, other) DO UPDATE\n                SET memories = t.memories + excluded.memories;\n        END IF;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_facet_tally_ai AFTER INSERT ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_facet_tally_keep()",
    "CREATE TRIGGER memories_facet_tally_ad AFTER DELETE ON memories_memory\nFOR EACH ROW EXECUTE FUNCTION memories_facet_tally_keep()",
    "CREATE TRIGGER memories_facet_tally_au\nAFTER UPDATE OF project_id, load, verified_at, tags ON memories_memory\nFOR EACH ROW WHEN (\n    OLD.project_id IS DISTINCT FROM NEW.project_id OR OLD.load IS DISTINCT FROM NEW.load\n    OR OLD.verified_at IS DISTINCT FROM NEW.verified_at OR OLD.tags IS DISTINCT FROM NEW.tags\n) EXECUTE FUNCTION memories_facet_tally_keep()",
    "DELETE FROM memories_verifiedtally",
    "INSERT INTO memories_verifiedtally(tier, load, day, memories) SELECT coalesce(project_id, 0), load, (memories_memory.verified_at AT TIME ZONE 'UTC')::date, count(*) FROM memories_memory GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagverifiedtally",
    "INSERT INTO memories_tagverifiedtally(tier, tag, day, memories) SELECT coalesce(m.project_id, 0), j.value, (m.verified_at AT TIME ZONE 'UTC')::date, count(*) FROM memories_memory m, jsonb_array_elements_text(m.tags) AS j(value) GROUP BY 1, 2, 3",
    "DELETE FROM memories_tagpairtally",
    "INSERT INTO memories_tagpairtally(tier, tag, other, memories) SELECT coalesce(m.project_id, 0), a.value, b.value, count(*) FROM memories_memory m, jsonb_array_elements_text(m.tags) AS a(value), jsonb_array_elements_text(m.tags) AS b(value) WHERE a.value <> b.value GROUP BY 1, 2, 3",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_facet_tally_ai ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_facet_tally_ad ON memories_memory",
    "DROP TRIGGER IF EXISTS memories_facet_tally_au ON memories_memory",
    "DROP FUNCTION IF EXISTS memories_facet_tally_keep()",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0019_postgresql_search_in_row"),
    ]

    operations = [
        migrations.CreateModel(
            name="TagPairTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tier", models.BigIntegerField()),
                ("tag", models.TextField()),
                ("other", models.TextField()),
                ("memories", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tag", "tier", "other"), name="tag_pair_tally_once"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="TagVerifiedTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tier", models.BigIntegerField()),
                ("tag", models.TextField()),
                ("day", models.DateField()),
                ("memories", models.BigIntegerField(default=0)),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["day", "tier", "tag", "memories"], name="tag_verified_tally_day"
                    ),
                    models.Index(
                        fields=["tag", "day", "tier", "memories"], name="tag_verified_tally_tag"
                    ),
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tag", "tier", "day"), name="tag_verified_tally_once"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="VerifiedTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tier", models.BigIntegerField()),
                ("load", models.CharField(max_length=6)),
                ("day", models.DateField()),
                ("memories", models.BigIntegerField(default=0)),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["day", "tier", "load", "memories"], name="verified_tally_day"
                    ),
                    models.Index(
                        fields=["tier", "day", "load", "memories"], name="verified_tally_tier"
                    ),
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tier", "day", "load"), name="verified_tally_once"
                    )
                ],
            },
        ),
        RunSQLOn("sqlite", SQLITE_SQL, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRESQL_SQL, POSTGRESQL_REVERSE),
    ]
