"""Fill a store with N realistic memories through the real schema and its triggers.

    python bench/generate.py 100000                 # var/bench/100000/memadmin.sqlite3
    python bench/generate.py 10000 --data-dir /tmp/store --seed 7

The store is migrated by Django (so the tables, indexes, FTS5 index and triggers are the
ones the app runs on) and the memories go in as plain INSERTs in one transaction, the
derived tables then rebuilt by the engine (see generate()); the write doors would take an
hour at this size and add nothing a benchmark measures. A store that already holds
the same count and seed is reused.

The text is made to exercise search: a Zipf-distributed vocabulary (so common words are
common and most words are rare), and a controlled share of memories holding the terms the
benchmarks query: COMMON_WORD in about half of them, RARE_WORD in a handful, the
PREFIX_WORD family (deploy, deploys, deployment, deployer...), Japanese and Chinese prose
holding CJK_TERM, and paths and URLs.
"""

import argparse
import datetime as dt
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMON_WORD = "service"  # in about half of the memories
RARE_WORD = "quokka"  # in RARE_COUNT of them
RARE_COUNT = 5
PREFIX_WORD = "deploy"  # a prefix of deployment, deployer, deployable...
CJK_TERM = "東京"  # in about 2% of them, inside unspaced Japanese prose
PATH_TERM = "/etc/nginx/sites-enabled/default.conf"

PROJECTS = ["webdev", "infra", "movie", "research", "legacy", "mobile", "data", "billing"]
TAGS = ["infra", "people", "decisions", "ops", "style", "security", "billing", "docs", "ci"]


def _words(text: str) -> list[str]:
    return text.split()


COMMON_ENGLISH = _words(
    "the of and to in is for on that with as it be are this by from at or an not was has "
    "have use uses used when all only after before must should never always every each new "
    "old first last next one two three day week month team user users file files run runs "
    "check checks change changes note notes keep kept prefer prefers rule rules host hosts "
    "build builds test tests release releases review reviews branch branches ticket tickets"
)
DOMAIN = _words(
    "database backup restore cron nightly schedule rotation oncall pager alert alerts metric "
    "dashboard latency cache redis postgres sqlite migration schema index query replica "
    "primary failover bastion firewall certificate renewal dns record proxy gateway cluster "
    "node container image registry pipeline runner artifact bucket storage quota budget "
    "invoice customer contract vendor meeting standup retro roadmap milestone sprint design "
    "review approval security token secret vault audit compliance privacy retention logs "
    "tracing profiling benchmark regression flaky timeout retry queue worker scheduler "
    "frontend backend mobile android ios webhook endpoint payload schema version upgrade "
    "terse brevity verbosity summary timezone holiday vacation handover"
)
DEPLOY_FAMILY = ["deploy", "deploys", "deployed", "deploying", "deployment", "deployments"]
DEPLOY_DERIVED = ["deployer", "deployable", "deployability"]
JAPANESE = [
    "東京の天気は晴れです",
    "東京オフィスの会議室は三階にあります",
    "大阪の倉庫は月曜日に閉まります",
    "京都の顧客には日本語で返信する",
    "名古屋チームは金曜日にリリースしない",
    "東京と大阪の間の回線は夜間に保守される",
]
CHINESE = [
    "北京团队负责数据库备份",
    "上海办公室周五不发布",
    "深圳仓库的库存每天同步",
    "东京分公司使用日本语沟通",
]
THAI = ["ภาษาไทยเป็นภาษาราชการ", "ทีมกรุงเทพดูแลระบบสำรองข้อมูล"]
PATHS = [
    PATH_TERM,
    "/srv/app/config/settings.yaml",
    "/var/log/app/worker.log",
    "src/styles/tokens.css",
    "infra/terraform/modules/network/main.tf",
    "C:\\Users\\ops\\deploy\\run.ps1",
]
URLS = [
    "https://wiki.example.com/ops/deploy-runbook",
    "https://grafana.example.net/d/latency-overview?orgId=1",
    "https://github.com/example/app/pull/4312",
    "https://docs.example.org/api/v2/webhooks#retries",
]
IDENTIFIERS = [
    "getUserAccountSettingsHandler",
    "PaymentReconciliationWorker",
    "MEMADMIN_INLINE_MAX_BYTES",
    "k8s-prod-eu-west-1-cluster",
]


def _rare_words(rng: random.Random, count: int) -> list[str]:
    consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
    words = set()
    while len(words) < count:
        syllables = rng.randint(2, 4)
        words.add(
            "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(syllables))
            + rng.choice(["", "n", "r", "s", "t"])
        )
    words.discard(RARE_WORD)
    return sorted(words)


class TextMaker:
    """Zipf-distributed words: the first few are everywhere, most of the list is rare."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.vocabulary = COMMON_ENGLISH + DOMAIN + _rare_words(rng, 20_000)
        weights = [1 / (rank + 1) ** 1.05 for rank in range(len(self.vocabulary))]
        total = 0.0
        self.cumulative = []
        for weight in weights:
            total += weight
            self.cumulative.append(total)

    def words(self, count: int) -> list[str]:
        return self.rng.choices(self.vocabulary, cum_weights=self.cumulative, k=count)

    def sentence(self, low: int, high: int) -> str:
        words = self.words(self.rng.randint(low, high))
        return " ".join(words).capitalize() + "."


def _memory_text(maker: TextMaker, rng: random.Random, index: int, rare_at: set[int]):
    description = maker.sentence(5, 14)[:-1]
    paragraphs = []
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        paragraphs.append(" ".join(maker.sentence(6, 18) for _ in range(rng.randint(1, 4))))
    extras = []
    if rng.random() < 0.5:
        extras.append(f"The {COMMON_WORD} owner signs off.")
    if rng.random() < 0.08:
        extras.append(f"{rng.choice(DEPLOY_FAMILY).capitalize()} go through the bastion.")
    if rng.random() < 0.02:
        extras.append(f"The {rng.choice(DEPLOY_DERIVED)} checklist applies.")
    if rng.random() < 0.02:
        extras.append("。".join(rng.sample(JAPANESE, 2)) + "。")
    if rng.random() < 0.01:
        extras.append(rng.choice(CHINESE) + "。")
    if rng.random() < 0.005:
        extras.append(rng.choice(THAI))
    if rng.random() < 0.05:
        extras.append(f"See {rng.choice(PATHS)}.")
    if rng.random() < 0.05:
        extras.append(f"Runbook: {rng.choice(URLS)}")
    if rng.random() < 0.03:
        extras.append(f"Handled by {rng.choice(IDENTIFIERS)}.")
    if index in rare_at:
        extras.append(f"The {RARE_WORD} incident is closed.")
    if extras:
        paragraphs.insert(rng.randrange(len(paragraphs) + 1), " ".join(extras))
    body = "\n\n".join(paragraphs) if rng.random() < 0.95 else ""
    return description, body


INSERT = """
INSERT INTO memories_memory (
    name, project_id, description, body, tags, refs, priority, load, source,
    created_at, updated_at, verified_at, expires_at, read_count
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
"""


def _rows(count: int, seed: int, project_ids: list[int], now: dt.datetime):
    from django.db import connection

    def stamp(moment):
        return connection.ops.adapt_datetimefield_value(moment)

    from memories.rules.budget import budget_bytes

    rng = random.Random(seed)
    maker = TextMaker(rng)
    # The doors keep a band (the global tier and one project's) within the inline budget,
    # so a store can hold no more: half of it for the global tier, half for each project's.
    inline_room = dict.fromkeys([None, *project_ids], budget_bytes() // 2)
    rare_at = set(rng.sample(range(count), min(RARE_COUNT, count)))
    names: list[str] = []
    for index in range(count):
        description, body = _memory_text(maker, rng, index, rare_at)
        first, second = maker.words(2)
        name = f"{first}-{second}-{index}"
        names.append(name)
        project_id = rng.choice(project_ids) if rng.random() < 0.7 else None
        created = now - dt.timedelta(days=rng.uniform(0, 730))
        updated = created + (now - created) * rng.random() ** 3
        verified = created if rng.random() < 0.7 else created + (now - created) * rng.random()
        expires = None
        if rng.random() < 0.04:
            expires = now + dt.timedelta(days=rng.uniform(-200, 200))
        references = []
        if rng.random() < 0.3:
            references = rng.sample(names[-500:], min(len(names), rng.randint(1, 3)))
            if rng.random() < 0.3:
                references.append(rng.choice(URLS + PATHS))
        tags = rng.sample(TAGS, rng.choice([0, 1, 1, 2, 3]))
        priority = rng.choices(range(11), weights=[2, 4, 6, 8, 10, 30, 10, 8, 8, 6, 8])[0]
        load = "inline" if rng.random() < 0.002 else rng.choice(["index"] * 4 + ["search"])
        if load == "inline":
            spent = len(body.encode())
            if spent > inline_room[project_id]:
                load = "index"
            else:
                inline_room[project_id] -= spent
        read_count = int(rng.paretovariate(1.5)) - 1 if rng.random() < 0.4 else 0
        yield (
            name,
            project_id,
            description,
            body,
            json.dumps(tags),
            json.dumps(references),
            priority,
            load,
            "generated" if rng.random() < 0.5 else "",
            stamp(created),
            stamp(updated),
            stamp(verified),
            stamp(expires) if expires else None,
            read_count,
        )


def setup_django(data_dir: Path, database_url: str = "") -> None:
    """Point the settings at data_dir and the database (before Django reads them: empty,
    SQLite's file in data_dir) and set Django up."""
    os.environ["MEMADMIN_DATA_DIR"] = str(data_dir)
    os.environ["MEMADMIN_DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def generate(count: int, seed: int = 1) -> int:
    """Fill the configured (empty, migrated) store; returns the number of memories written.

    The rows go in with the triggers keeping the derived tables (the search index, the
    reference and tag rows, the tallies) set aside, and those tables are then built in one
    pass by the engine's rebuild, which puts the triggers back (the wording keys, which are
    Python's, then by their mend): a million memories in a few minutes where a trigger per
    row took several times as long. The cross-tier name rule stays on throughout on SQLite
    (see below for PostgreSQL).
    """
    from django.db import connection, transaction
    from django.utils import timezone

    from memories import engine
    from projects import writes as project_doors

    index = engine.of(connection).index
    postgresql = connection.vendor == "postgresql"
    # PostgreSQL's cross-tier trigger takes a lock per row (past the lock table at this
    # size) and its GIN indexes grow a row at a time: there both are set aside as well,
    # the generated names being unique in any case, and the rebuild puts them back.
    # Only the memories' own: the dangling tally's triggers have nothing to follow meanwhile.
    set_aside = [
        name
        for name, statement in index.TRIGGERS.items()
        if statement.split(" ON ", 1)[1].split()[0] == index.MEMORY_TABLE
        and (postgresql or "cross_tier" not in name)
    ]
    indexes = list(getattr(index, "INDEXES", {})) if postgresql else []
    project_ids = [project_doors.add(name).id for name in PROJECTS]
    now = timezone.now()
    batch: list[tuple] = []
    with transaction.atomic(), connection.cursor() as cursor:
        on_table = f" ON {index.MEMORY_TABLE}" if postgresql else ""
        for name in set_aside:
            cursor.execute(f"DROP TRIGGER {name}{on_table}")
        for name in indexes:
            cursor.execute(f"DROP INDEX {name}")
        for row in _rows(count, seed, project_ids, now):
            batch.append(row)
            if len(batch) == 5000:
                cursor.executemany(INSERT, batch)
                batch.clear()
        if batch:
            cursor.executemany(INSERT, batch)
    restored = derive()
    assert sorted(restored) == sorted(set_aside + indexes), restored
    return count


def derive() -> list[str]:
    """The derived tables of memories written past the triggers built by the engine's rebuild
    (returning what it put back), the wording keys mended, and the statistics taken."""
    from django.db import connection

    from memories import engine
    from memories.writes import wordings

    restored = engine.of(connection).index.rebuild()
    wordings.mend(wordings.check())  # the rebuild left each memory's wording key unknown
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        cursor.execute(_STATISTICS[connection.vendor])
    return restored


# After a bulk fill: statistics for the planner and, on PostgreSQL, the visibility map
# autovacuum would set on a live server, without which no index-only scan reads an index alone.
_STATISTICS = {"sqlite": "ANALYZE", "postgresql": "VACUUM ANALYZE"}


def store_path(data_dir: Path) -> Path:
    return data_dir / "memadmin.sqlite3"


def ensure_store(
    count: int, data_dir: Path | None = None, seed: int = 1, database_url: str = ""
) -> Path:
    """A store of `count` memories made with `seed` in data_dir (or, with database_url, in
    that PostgreSQL database), built unless already there.

    Sets Django up on it; returns the SQLite file's path (the data dir's, for PostgreSQL).
    """
    engine = "postgresql" if database_url else "sqlite"
    default = f"{count}-{seed}" + ("-postgresql" if database_url else "")
    data_dir = (data_dir or ROOT / "var" / "bench" / default).resolve()
    marker = data_dir / "generated.json"
    wanted = {"count": count, "seed": seed} | ({"engine": engine} if database_url else {})
    if marker.exists() and json.loads(marker.read_text()) != wanted:
        raise SystemExit(f"{data_dir} holds another generated store; pick another --data-dir.")
    data_dir.mkdir(parents=True, exist_ok=True)
    setup_django(data_dir, database_url)
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from memories.models import Memory

    if marker.exists():
        # A store generated before a later migration gets it, and statistics on its indexes.
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", verbosity=0)
            with connection.cursor() as cursor:
                cursor.execute(_STATISTICS[connection.vendor])
        return store_path(data_dir)
    call_command("migrate", verbosity=0)
    if Memory.objects.exists():
        raise SystemExit(f"{data_dir} already holds memories; pick another --data-dir.")
    started = time.perf_counter()
    generate(count, seed)
    marker.write_text(json.dumps(wanted))
    print(
        f"Generated {count} memories in {time.perf_counter() - started:.1f} s "
        f"into {store_path(data_dir)}",
        file=sys.stderr,
    )
    return store_path(data_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="how many memories")
    parser.add_argument("--data-dir", type=Path, help="default: var/bench/<count>-<seed>/")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    print(ensure_store(options.count, options.data_dir, options.seed))


if __name__ == "__main__":
    main()
