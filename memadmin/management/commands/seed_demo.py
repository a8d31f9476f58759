"""`manage.py seed_demo`: a realistic, deterministic demo store.

Every memory goes in through the write door. Afterwards its dates and read counts are moved
into the past with plain UPDATEs (the doors stamp "now", and a demo of a store that is two
years old needs two years of history), and one project's band, legacy's, is pushed over the
inline budget past the doors, as a store looks after the budget was lowered beneath what it
holds. Every other band keeps room to spare, so what the demo refuses is what that one band
refuses: inline bytes added to legacy, or to the global tier, whose memories are in legacy's
band too (the overview says so beside the figure).
"""

import datetime as dt
import random

from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from memadmin.cli.faults import StoreCommand
from memadmin.cli.progress import Progress
from memories.models import Memory, Revision
from memories.writes import doors, history
from projects import writes as project_doors
from projects.models import Project

PROJECTS = ["webdev", "infra", "movie", "research", "legacy"]

PEOPLE = [
    ("k4yt3x", "UTC+8", "terse replies, no preamble"),
    ("alice", "Europe/Berlin", "diagrams before prose"),
    ("bob", "America/Chicago", "bullet lists with owners"),
    ("carmen", "Asia/Tokyo", "Japanese for casual chat, English for specs"),
    ("dmitri", "Europe/Helsinki", "one question at a time"),
    ("eun-ji", "Asia/Seoul", "code first, explanation after"),
    ("farah", "Asia/Dubai", "links to the source for every claim"),
    ("gustavo", "America/Sao_Paulo", "short commit messages in the imperative"),
]

TOPICS = {
    "infra": [
        (
            "deploy-host",
            "Production deploys go to host-7 through the bastion",
            "Deploys go to host-7.internal via the bastion at bastion-2. Never deploy on Fridays.",
        ),
        (
            "db-backups",
            "Nightly database backups run at 02:00 UTC and keep 14 days",
            "pg_dump runs from cron on backup-1. Restores are tested on the first Monday.",
        ),
        (
            "dns-provider",
            "DNS is managed in the provider console, not in terraform",
            "Records changed by hand must be copied into the DNS sheet the same day.",
        ),
        (
            "oncall-rotation",
            "On-call rotates weekly on Monday 10:00 local time",
            "The schedule lives in the paging tool; swaps need a message in #oncall.",
        ),
        (
            "tls-renewal",
            "TLS certificates renew automatically 30 days before expiry",
            "If renewal fails the alert goes to the infra channel, not to a person.",
        ),
        (
            "log-retention",
            "Application logs are kept 30 days, audit logs 1 year",
            "Shipping runs through the collector on every node.",
        ),
        (
            "staging-reset",
            "Staging is reset from a production snapshot every Sunday",
            "Anything stored on staging after Friday is lost on Sunday night.",
        ),
    ],
    "webdev": [
        (
            "package-manager",
            "The web app uses pnpm, never npm or yarn",
            "Lockfile is pnpm-lock.yaml; CI fails on any other lockfile.",
        ),
        (
            "css-approach",
            "Styles are plain CSS modules; no utility framework",
            "Tokens live in src/styles/tokens.css.",
        ),
        (
            "api-client",
            "The web app calls the API through the generated client only",
            "Regenerate with `pnpm gen:api` after changing the OpenAPI document.",
        ),
        (
            "release-train",
            "Web releases ship on Tuesdays and Thursdays",
            "Hotfixes go out any day with a second reviewer.",
        ),
        (
            "browser-support",
            "Supported browsers: the last two versions of each engine",
            "Safari bugs are fixed, not worked around with user-agent checks.",
        ),
        (
            "i18n-keys",
            "Translation keys are namespaced by page",
            "Missing keys render the key itself and log a warning in development.",
        ),
    ],
    "movie": [
        (
            "render-farm",
            "Renders queue on the farm overnight; the cap is 40 nodes",
            "Submit with the studio template; priority renders need a producer's sign-off.",
        ),
        (
            "color-pipeline",
            "Grading happens in ACES; deliverables are Rec.709",
            "LUTs live under /mnt/show/luts and are versioned by date.",
        ),
        (
            "edit-lock",
            "The edit is locked on the 12th; no cuts after that",
            "Changes after the lock need the director and the producer.",
        ),
        (
            "subtitle-format",
            "Subtitles are delivered as SRT and TTML",
            "Line length at most 42 characters, two lines per card.",
        ),
    ],
    "research": [
        (
            "eval-protocol",
            "Evaluations run three seeds and report the median",
            "Report the spread as min-max, never the standard error of three runs.",
        ),
        (
            "dataset-license",
            "The crawl dataset is licensed for research only",
            "No model trained on it ships to customers.",
        ),
        (
            "paper-deadline",
            "Workshop paper deadline is the 25th, anywhere on earth",
            "Camera-ready is due two weeks after notification.",
        ),
        (
            "gpu-quota",
            "The lab's GPU quota resets on the first of the month",
            "Long jobs should checkpoint every hour.",
        ),
    ],
}

RULES = [
    (
        "answer-in-kind",
        "Answer in the language the user wrote in",
        "Match the user's language. If they mix languages, answer in the question's language.",
    ),
    (
        "no-secrets-in-memory",
        "Never store credentials or tokens in memory",
        "Memory bodies are exported and read by people; secrets go in the vault.",
    ),
    (
        "cite-sources",
        "Say where a fact came from when it matters",
        "Put the source in the memory's source field; name it when relying on the fact.",
    ),
    (
        "ask-before-destructive",
        "Ask before any destructive command",
        "rm -rf, force pushes, dropping tables: describe what will happen and wait for a yes.",
    ),
    (
        "prefer-small-diffs",
        "Prefer small reviewable diffs over sweeping rewrites",
        "Split refactors from behaviour changes.",
    ),
]

CJK = [
    (
        "meeting-notes-tokyo",
        "東京オフィスの定例会議メモ",
        "毎週水曜日の定例会議。議題は進捗確認と課題の共有。議事録は共有ドライブに保存する。",
    ),
    (
        "zh-style-guide",
        "中文文档的写作规范",
        "中文文档使用全角标点，中英文之间加空格。术语表在维基上维护。",
    ),
    (
        "thai-greeting",
        "คำทักทายสำหรับลูกค้าในประเทศไทย",
        "ใช้คำว่าสวัสดีครับหรือสวัสดีค่ะตามผู้พูด และลงท้ายด้วยขอบคุณ",
    ),
    (
        "carmen-prefs",
        "カルメンさんはカジュアルな会話では日本語を好む",
        "仕様書は英語で書くこと。雑談は日本語でよい。",
    ),
]

URLS = [
    "https://wiki.example.com/ops/deploy",
    "https://tracker.example.com/issues/4312",
    "https://docs.example.com/api/v2",
]
PATHS = ["/etc/nginx/sites-enabled/app.conf", "src/settings/production.py", "docs/runbook.md"]
IDS = ["JIRA-4312", "INC-2291", "RFC-0042"]
DANGLING = ["write-me-later", "old-vpn-notes", "vendor-contacts"]
TAGS = ["infra", "people", "decisions", "process", "security", "tooling", "release", "style"]
BULK, LEGACY_RULES = 240, 16
WRITES = (
    len(RULES)
    + 2 * len(PEOPLE)
    + len(CJK)
    + 1
    + sum(len(topics) for topics in TOPICS.values())
    + BULK
    + LEGACY_RULES
)


def _long_body(rng: random.Random, title: str, paragraphs: int) -> str:
    steps = [
        "Check the dashboard for open alerts before starting.",
        "Announce the change in the team channel with the ticket number.",
        "Take a snapshot and note its id in the ticket.",
        "Run the change on staging first and wait ten minutes.",
        "Watch error rates and latency for a full deploy cycle.",
        "Roll back with the previous release tag if the error rate doubles.",
        "Write down anything surprising in the ticket, even if it worked.",
    ]
    parts = [f"# {title}", ""]
    for number in range(1, paragraphs + 1):
        parts.append(f"## Step {number}")
        parts.extend(f"- {rng.choice(steps)}" for _ in range(rng.randint(3, 6)))
        parts.append("")
    return "\n".join(parts)


class Command(StoreCommand):
    help = "Load a deterministic demo store (a few hundred memories) into an empty store."

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="do nothing (and succeed) when the store already holds memories",
        )
        parser.add_argument("--seed", type=int, default=42)

    def handle(self, *args, if_empty: bool, seed: int, **options):
        if Memory.objects.exists() or Project.objects.filter(name__in=PROJECTS).exists():
            if if_empty:
                self.stdout.write(
                    "The store already holds memories or the demo's projects;"
                    " the demo was not loaded."
                )
                return
            raise CommandError(
                "The store is not empty (it holds memories or a project of the demo's name);"
                " seed_demo only fills an empty store."
            )
        rng = random.Random(seed)
        now = timezone.now()
        with (
            history.acting(door=history.COMMAND, label="manage.py seed_demo"),
            transaction.atomic(),
            Progress(self.stderr, WRITES, "Seeding") as self._bar,
        ):
            for name in PROJECTS:
                project_doors.add(name)
            written = self._write_all(rng)
            self._age(rng, now)
            self._overfill_legacy(rng)
            self._date_the_history()
        self.stdout.write(f"Loaded the demo store: {written} memories in {len(PROJECTS)} projects.")

    def _write(self, name, project=None, **values) -> None:
        self._bar.advance()
        doors.write(name, project=project, **values)

    def _write_all(self, rng: random.Random) -> int:
        count = 0
        for name, description, body in RULES:
            self._write(
                name,
                description=description,
                body=body,
                priority=rng.choice([0, 1]),
                load="inline",
                tags=["style"],
                source="team handbook",
            )
            count += 1
        for person, zone, prefers in PEOPLE:
            self._write(
                f"{person}-timezone",
                description=f"{person} works in {zone}",
                body=f"{person} is on {zone}; schedule calls in their morning.",
                tags=["people"],
                priority=rng.randint(2, 6),
            )
            self._write(
                f"{person}-prefers",
                description=f"{person} prefers {prefers}",
                body=f"Observed in review threads: {person} asks for {prefers}.",
                tags=["people", "style"],
                priority=rng.randint(3, 8),
                source=f"{person}, in chat",
            )
            count += 2
        for name, description, body in CJK:
            self._write(
                name,
                description=description,
                body=body,
                tags=["people", "style"],
                priority=rng.randint(3, 7),
            )
            count += 1
        self._write(
            "deploy-runbook",
            description="The full deploy runbook, step by step",
            body=_long_body(rng, "Deploy runbook", 12),
            tags=["infra", "process"],
            priority=2,
            references=["deploy-host", URLS[0], PATHS[2]],
        )
        count += 1
        topic_names = []
        for tier, topics in TOPICS.items():
            project = tier if tier in PROJECTS and tier != "infra" else None
            for name, description, body in topics:
                self._write(
                    name,
                    project=project,
                    description=description,
                    body=body,
                    tags=[tier, rng.choice(TAGS)],
                    priority=rng.randint(1, 9),
                    load=rng.choice(["index", "index", "index", "search", "inline"]),
                    references=rng.sample(URLS + PATHS + IDS, rng.randint(0, 2)),
                )
                topic_names.append((name, project))
                count += 1
        # The bulk: decisions and notes, referencing the topics, each other and the outside.
        subjects = [
            "cache",
            "queue",
            "search",
            "billing",
            "auth",
            "export",
            "metrics",
            "cli",
            "mobile",
            "email",
            "uploads",
            "webhooks",
            "reports",
            "sso",
            "backups",
        ]
        verbs = ["uses", "moved to", "dropped", "pinned", "rate-limits", "shards", "retries"]
        things = [
            "Redis",
            "SQLite",
            "Postgres",
            "a cron job",
            "the worker pool",
            "S3",
            "three replicas",
            "exponential backoff",
            "version 2 of the schema",
        ]
        tiers = [None, None, "webdev", "infra", "movie", "research"]
        for number in range(BULK):
            subject = rng.choice(subjects)
            project = rng.choice(tiers)
            name = f"{subject}-decision-{number:03d}"
            description = f"The {subject} service {rng.choice(verbs)} {rng.choice(things)}"
            refs = []
            if topic_names and rng.random() < 0.4:
                target, target_project = rng.choice(topic_names)
                if target_project in (None, project):
                    refs.append(target)
            if rng.random() < 0.25:
                refs.append(rng.choice(URLS + PATHS + IDS))
            if rng.random() < 0.05:
                refs.append(rng.choice(DANGLING))
            if number and rng.random() < 0.3:
                refs.append(f"{rng.choice(subjects)}-decision-{rng.randrange(number):03d}")
            body = (
                f"Decided after the {rng.choice(['March', 'June', 'October'])} review. "
                f"{description}. Reason: {rng.choice(['cost', 'latency', 'simplicity'])}."
            )
            if rng.random() < 0.05:
                body = _long_body(rng, f"Notes on {subject}", rng.randint(4, 10))
            expires = None
            if rng.random() < 0.08:
                expires = (timezone.now() - dt.timedelta(days=rng.randint(1, 60))).date()
                expires = expires.isoformat()
            try:
                self._write(
                    name,
                    project=project,
                    description=description,
                    body=body,
                    tags=rng.sample(TAGS, rng.randint(0, 3)),
                    references=refs,
                    priority=rng.randint(1, 20),
                    expires=expires,
                    load=rng.choice(["index"] * 6 + ["search"] * 2),
                )
            except Exception:  # a name another tier holds: the demo skips it as a user would
                continue
            count += 1
        for number in range(LEGACY_RULES):
            self._write(
                f"legacy-rule-{number:02d}",
                project="legacy",
                description=f"Legacy operating rule {number} from the old wiki",
                body=_long_body(rng, f"Legacy rule {number}", rng.randint(8, 12)),
                priority=0,
                tags=["process"],
                load="index",
            )
            count += 1
        return count

    def _age(self, rng: random.Random, now: dt.datetime) -> None:
        for memory in Memory.objects.order_by("id"):
            created = now - dt.timedelta(days=rng.randint(0, 720), hours=rng.randint(0, 23))
            verified = created + (now - created) * rng.random() if rng.random() < 0.35 else created
            Memory.objects.filter(id=memory.id).update(
                created_at=created,
                updated_at=max(verified, created),
                verified_at=verified,
                read_count=int(rng.paretovariate(1.2)) - 1 if rng.random() < 0.7 else 0,
            )

    def _overfill_legacy(self, rng: random.Random) -> None:
        # As after an upgrade made every priority-0 memory inline: past the doors.
        Memory.objects.filter(project__name="legacy", priority=0).update(load="inline")

    def _date_the_history(self) -> None:
        # Each memory's one revision, its creation, is dated and shown as the aged row, and
        # written again in the order of those dates, as the log reads newest first by id.
        revisions = {revision.memory_id: revision for revision in Revision.objects.all()}
        Revision.objects.all().delete()
        dated = []
        for memory in Memory.objects.select_related("project").order_by("created_at", "id"):
            revision = revisions[memory.id]
            revision.pk, revision.at, revision.after = (
                None,
                memory.created_at,
                history.snapshot(memory),
            )
            dated.append(revision)
        Revision.objects.bulk_create(dated)
