import datetime as dt
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import OperationalError, connection
from django.utils import timezone

from memories.models import Memory
from memories.writes import doors, imports
from projects import writes as project_doors


def pytest_collection_modifyitems(config, items):
    """A test of one engine's own parts (`@pytest.mark.engine("sqlite")`) runs when that
    engine holds the store under test; scripts/test.sh runs the suite once on each engine."""
    kept, other = [], []
    for item in items:
        marker = item.get_closest_marker("engine")
        (other if marker and connection.vendor not in marker.args else kept).append(item)
    if other:
        config.hook.pytest_deselected(items=other)
        items[:] = kept


def pytest_sessionstart(session):
    """The directory collectstatic fills (scripts/run.sh runs it; a fresh clone's tests do
    not): WhiteNoise warns when it is set up without it, as the schemathesis tests do while
    being collected."""
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


def busy_error() -> OperationalError:
    """The error the store's engine raises when another writer held it past the timeout."""
    if connection.vendor == "sqlite":
        return OperationalError("database is locked")
    from psycopg import errors

    error = OperationalError("canceling statement due to lock timeout")
    error.__cause__ = errors.LockNotAvailable("canceling statement due to lock timeout")
    return error


PASSWORD = "a long enough password"


def make_user(username: str, role: str | None) -> User:
    """A user who can sign in with PASSWORD, in the role's group (None: no role)."""
    user = User.objects.create_user(username, password=PASSWORD)
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Users made with a password sign in on many pages; the real hasher would cost each a
    fraction of a second."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def project(db):
    return project_doors.add("webdev")


@pytest.fixture
def other_project(db):
    return project_doors.add("infra")


@pytest.fixture
def small_budget(settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    return 100


def backdate(memory: Memory, *, days: int, verified_days: int | None = None) -> Memory:
    """Move a memory's dates into the past, as time passing would."""
    now = timezone.now()
    created = now - dt.timedelta(days=days)
    verified = created if verified_days is None else now - dt.timedelta(days=verified_days)
    Memory.objects.filter(id=memory.id).update(
        created_at=created, updated_at=created, verified_at=verified
    )
    memory.refresh_from_db()
    return memory


@pytest.fixture
def write(db):
    """doors.write with a description filled in, for tests about other fields."""

    def _write(name, **values):
        values.setdefault("description", f"about {name}")
        return doors.write(name, **values)

    return _write


def restore(*memories: dict) -> None:
    """Many memories landed at once through the import door (one transaction, its inserts
    batched), for tests that need a few hundred: each dict gives an ImportEntry's fields, the
    global tier, a description and a moment of creation filled in when left out."""
    now = timezone.now()
    imports.import_memories(
        [
            imports.ImportEntry(
                **{
                    "project": None,
                    "description": f"about {memory['name']}",
                    "created_at": now,
                    **memory,
                }
            )
            for memory in memories
        ]
    )


@pytest.fixture(autouse=True)
def _static_files_without_manifest(settings):
    """Pages link static files by name; tests run without collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def write_duplicates() -> None:
    """A store for the consolidation review (the project webdev must exist): a global cluster
    by meaning (deploy-night survives, nightly-deploy goes: its description and body are
    contained in deploy-night's, so one click may trash it; cite-it is re-pointed), an exact
    cluster in webdev (copy-b survives, copy-a goes, page-cites is re-pointed) and the same
    words in the global tier (copy-c), which is no duplicate of a project's memory."""
    doors.write(
        "deploy-night",
        description="The production deploy runs every night at two",
        body="Run by cron on the build host.",
        tags=["ops"],
        references=["runbook", "nightly-deploy"],
        priority=3,
    )
    doors.write(
        "nightly-deploy",
        description="The production deploy runs every night",
        body="Run by cron",
        tags=["deploy", "ops"],
        references=["https://ci.example/deploy"],
    )
    doors.write(
        "cite-it", description="Who to ask about releases", references=["nightly-deploy", "tz"]
    )
    doors.write("tz", description="K4YT3X lives in UTC+8")
    same = {"description": "Answer in <b>kind</b>", "body": "Match the user's language."}
    doors.write("copy-a", project="webdev", priority=4, **same)
    doors.write("copy-b", project="webdev", priority=2, **same)
    doors.write("copy-c", **same)
    doors.write(
        "page-cites", description="Page layout notes", project="webdev", references=["copy-a"]
    )


def write_to_review() -> None:
    """Beside write_duplicates: deploy-at-two, alike in meaning to deploy-night but saying
    what it does not (2 am, "each night", the build host in other words): a member to review,
    never trashed by one click."""
    doors.write(
        "deploy-at-two",
        description="Production deploys run each night at 2 am",
        body="cron runs it on the build host; page <b>ops</b> if it fails",
        tags=["ops", "night"],
        priority=5,
    )


@pytest.fixture
def bounded_hygiene(monkeypatch):
    """Hygiene of a scope beyond one tier counted up to 3, its dangling targets drawn from its
    newest 2 memories once it holds more than 4."""
    from memories.reads import graph, hygiene

    monkeypatch.setattr(hygiene, "COUNT_BOUND", 3)
    monkeypatch.setattr(hygiene, "SCOPE_READ", 2)
    monkeypatch.setattr(graph, "SCOPE_LOOKUP", 4)


@pytest.fixture
def tagged_ops(db, bounded_hygiene):
    """Ten memories tagged ops, past the bounds: five citing a target each, five orphans."""
    for number in range(5):
        doors.write(
            f"m{number}",
            description=f"about m{number}",
            tags=["ops"],
            references=[f"missing-{number}"],
        )
        doors.write(f"alone-{number}", description=f"about alone-{number}", tags=["ops"])


def dated(describe: str = "about {name}", write=None) -> None:
    """'fresh' and 'old': recorded, updated, verified and last read 2 and 60 days ago, expiring
    in as many days; what the date filters' tests ask about. `write(name, description)` writes
    each (the write door by default)."""
    now = timezone.now()
    for name, days in (("fresh", 2), ("old", 60)):
        (write or doors.write)(name, description=describe.format(name=name))
        moment = now - dt.timedelta(days=days)
        Memory.objects.filter(name=name).update(
            created_at=moment,
            updated_at=moment,
            verified_at=moment,
            last_read_at=moment,
            expires_at=now + dt.timedelta(days=days),
        )


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory):
    """A real OpenID Connect provider (tests/oidc_provider) serving on 127.0.0.1, for the test
    client (testserver) and the browser suite (127.0.0.1, any port: RFC 8252's loopback)."""
    from tests.oidc_provider.process import running

    callbacks = [
        "http://testserver/sign-in/oidc/callback/",
        "http://127.0.0.1/sign-in/oidc/callback/",
    ]
    with running(tmp_path_factory.mktemp("oidc-provider"), callbacks) as provider:
        yield provider


@pytest.fixture
def oidc(settings, oidc_provider):
    """memadmin set to sign in through the test provider, found by its issuer's discovery."""
    from tests.oidc_provider.process import CLIENT_ID, CLIENT_SECRET

    settings.MEMADMIN_OIDC_ISSUER = oidc_provider.issuer
    settings.MEMADMIN_OIDC_CLIENT_ID = CLIENT_ID
    settings.MEMADMIN_OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.MEMADMIN_OIDC_PROVIDER_NAME = "the test provider"
    return oidc_provider


@pytest.fixture(autouse=True)
def _feed_ends_with_the_test(monkeypatch):
    """The change feed's thread (memadmin.live.feed) ends with a test's streams, its database
    connection with it: the next test's store is another (a rolled-back test takes its
    changes' ids back), and a thread left reading would meet pytest-django's refusal."""
    from memadmin.live import feed

    monkeypatch.setattr(feed, "LINGER_SECONDS", 0.0)
    yield
    feed.FEED.close_all()
