"""Each dangling target's references over every tier (DanglingTarget) and the store's totals
of those (DanglingTotal), counted from the dangling tally and then kept by triggers on it and
on them; the tally's index for a tier's most cited targets. The SQL is frozen here as
memories.engine's sqlite and postgresql index modules wrote it."""

from django.db import migrations, models

from memories.engine.operations import RunSQLOn

SQLITE_SQL = [
    "INSERT INTO memories_danglingtarget(target, refs) SELECT target, sum(refs) FROM memories_danglingtally GROUP BY target",
    "INSERT INTO memories_danglingtotal(id, targets, refs) SELECT 1, count(*), sum(refs) FROM memories_danglingtarget HAVING count(*) > 0",
    "CREATE TRIGGER memories_dangling_target_ai AFTER INSERT ON memories_danglingtally\nBEGIN\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (new.target, new.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = new.target AND refs <= 0;\nEND",
    "CREATE TRIGGER memories_dangling_target_au AFTER UPDATE OF refs ON memories_danglingtally\nWHEN old.refs IS NOT new.refs\nBEGIN\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (new.target, new.refs - old.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = new.target AND refs <= 0;\nEND",
    "CREATE TRIGGER memories_dangling_target_ad AFTER DELETE ON memories_danglingtally\nBEGIN\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (old.target, 0 - old.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = old.target AND refs <= 0;\nEND",
    "CREATE TRIGGER memories_dangling_total_ai AFTER INSERT ON memories_danglingtarget\nBEGIN\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, 1, new.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\nEND",
    "CREATE TRIGGER memories_dangling_total_au AFTER UPDATE OF refs ON memories_danglingtarget\nWHEN old.refs IS NOT new.refs\nBEGIN\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, 0, new.refs - old.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\nEND",
    "CREATE TRIGGER memories_dangling_total_ad AFTER DELETE ON memories_danglingtarget\nBEGIN\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, -1, 0 - old.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\nEND",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_dangling_target_ai",
    "DROP TRIGGER IF EXISTS memories_dangling_target_au",
    "DROP TRIGGER IF EXISTS memories_dangling_target_ad",
    "DROP TRIGGER IF EXISTS memories_dangling_total_ai",
    "DROP TRIGGER IF EXISTS memories_dangling_total_au",
    "DROP TRIGGER IF EXISTS memories_dangling_total_ad",
]
POSTGRESQL_SQL = [
    "INSERT INTO memories_danglingtarget(target, refs) SELECT target, sum(refs) FROM memories_danglingtally GROUP BY target",
    "INSERT INTO memories_danglingtotal(id, targets, refs) SELECT 1, count(*), sum(refs) FROM memories_danglingtarget HAVING count(*) > 0",
    "CREATE OR REPLACE FUNCTION memories_dangling_target_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'INSERT' THEN\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (NEW.target, NEW.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = NEW.target AND refs <= 0;\n    ELSIF TG_OP = 'UPDATE' THEN\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (NEW.target, NEW.refs - OLD.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = NEW.target AND refs <= 0;\n    ELSE\n    INSERT INTO memories_danglingtarget (target, refs) VALUES (OLD.target, 0 - OLD.refs)\n    ON CONFLICT (target) DO UPDATE SET refs = memories_danglingtarget.refs + excluded.refs;\n    DELETE FROM memories_danglingtarget WHERE target = OLD.target AND refs <= 0;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE OR REPLACE FUNCTION memories_dangling_total_keep() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP = 'INSERT' THEN\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, 1, NEW.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\n    ELSIF TG_OP = 'UPDATE' THEN\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, 0, NEW.refs - OLD.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\n    ELSE\n    INSERT INTO memories_danglingtotal (id, targets, refs) VALUES (1, -1, 0 - OLD.refs)\n    ON CONFLICT (id) DO UPDATE SET targets = memories_danglingtotal.targets + excluded.targets,\n        refs = memories_danglingtotal.refs + excluded.refs;\n    DELETE FROM memories_danglingtotal WHERE targets <= 0;\n    END IF;\n    RETURN NULL;\nEND $$",
    "CREATE TRIGGER memories_dangling_target_ai AFTER INSERT ON memories_danglingtally\nFOR EACH ROW EXECUTE FUNCTION memories_dangling_target_keep()",
    "CREATE TRIGGER memories_dangling_target_au AFTER UPDATE OF refs ON memories_danglingtally\nFOR EACH ROW WHEN (OLD.refs IS DISTINCT FROM NEW.refs) EXECUTE FUNCTION memories_dangling_target_keep()",
    "CREATE TRIGGER memories_dangling_target_ad AFTER DELETE ON memories_danglingtally\nFOR EACH ROW EXECUTE FUNCTION memories_dangling_target_keep()",
    "CREATE TRIGGER memories_dangling_total_ai AFTER INSERT ON memories_danglingtarget\nFOR EACH ROW EXECUTE FUNCTION memories_dangling_total_keep()",
    "CREATE TRIGGER memories_dangling_total_au AFTER UPDATE OF refs ON memories_danglingtarget\nFOR EACH ROW WHEN (OLD.refs IS DISTINCT FROM NEW.refs) EXECUTE FUNCTION memories_dangling_total_keep()",
    "CREATE TRIGGER memories_dangling_total_ad AFTER DELETE ON memories_danglingtarget\nFOR EACH ROW EXECUTE FUNCTION memories_dangling_total_keep()",
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS memories_dangling_target_ai ON memories_danglingtally",
    "DROP TRIGGER IF EXISTS memories_dangling_target_au ON memories_danglingtally",
    "DROP TRIGGER IF EXISTS memories_dangling_target_ad ON memories_danglingtally",
    "DROP TRIGGER IF EXISTS memories_dangling_total_ai ON memories_danglingtarget",
    "DROP TRIGGER IF EXISTS memories_dangling_total_au ON memories_danglingtarget",
    "DROP TRIGGER IF EXISTS memories_dangling_total_ad ON memories_danglingtarget",
    "DROP FUNCTION IF EXISTS memories_dangling_target_keep()",
    "DROP FUNCTION IF EXISTS memories_dangling_total_keep()",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0024_dangling_tally"),
    ]

    operations = [
        migrations.CreateModel(
            name="DanglingTarget",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("target", models.TextField(unique=True)),
                ("refs", models.BigIntegerField()),
            ],
        ),
        migrations.CreateModel(
            name="DanglingTotal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("targets", models.BigIntegerField()),
                ("refs", models.BigIntegerField()),
            ],
        ),
        migrations.RemoveIndex(
            model_name="danglingtally",
            name="dangling_tally_target",
        ),
        migrations.AddIndex(
            model_name="danglingtally",
            index=models.Index(
                fields=["tier", "-refs", "target"], name="dangling_tally_most_cited"
            ),
        ),
        migrations.AddIndex(
            model_name="danglingtarget",
            index=models.Index(fields=["-refs", "target"], name="dangling_target_most_cited"),
        ),
        RunSQLOn("sqlite", SQLITE_SQL, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRESQL_SQL, POSTGRESQL_REVERSE),
    ]
