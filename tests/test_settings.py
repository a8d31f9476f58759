"""The SQLite connection as a shared instance needs it, and the settings from the environment."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection, transaction

ROOT = Path(__file__).resolve().parent.parent


def _pragma(name):
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA {name}")
        return cursor.fetchone()[0]


@pytest.mark.engine("sqlite")
def test_pragmas_are_in_force_on_the_live_connection(db):
    assert _pragma("journal_mode") == "wal"
    assert _pragma("busy_timeout") == 30000
    assert _pragma("foreign_keys") == 1
    assert _pragma("synchronous") == 1  # NORMAL


@pytest.mark.engine("sqlite")
@pytest.mark.django_db(transaction=True)
def test_atomic_blocks_take_the_write_lock_at_begin():
    """transaction_mode IMMEDIATE: a second writer is locked out before any write happens."""
    path = connection.settings_dict["NAME"]
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM memories_memory")
        other = sqlite3.connect(path, timeout=0)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        finally:
            other.close()


def _run(args, **env):
    # The browser suite allows sync database calls beside Playwright's loop in its own
    # process; a deployment never has that variable.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {**inherited, "DJANGO_SETTINGS_MODULE": "memadmin.settings", **env}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_deploy_is_clean_in_production_mode(tmp_path):
    result = _run(
        ["check", "--deploy", "--fail-level", "WARNING"],
        MEMADMIN_DATA_DIR=str(tmp_path),
        MEMADMIN_HTTPS="true",
        MEMADMIN_DEBUG="false",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_secret_key_is_generated_once_and_kept_private(tmp_path):
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    first = _run(["shell", "-c", code], MEMADMIN_DATA_DIR=str(tmp_path))
    second = _run(["shell", "-c", code], MEMADMIN_DATA_DIR=str(tmp_path))
    key_file = tmp_path / "secret_key"
    assert first.stdout.strip().splitlines()[-1] == second.stdout.strip().splitlines()[-1]
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert len(key_file.read_text().strip()) >= 50


def test_processes_starting_together_on_a_new_data_dir_share_one_key(tmp_path):
    """Two writers started at once on a fresh store once stopped with "File exists"."""
    start_at = time.time() + 1.5  # every process imported, then all read the settings at once
    code = (
        "import time; from django.conf import settings; import memadmin.env, memories.engine; "
        f"time.sleep(max(0, {start_at} - time.time())); print(settings.SECRET_KEY)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memadmin.settings"}
    env.pop("MEMADMIN_SECRET_KEY", None)
    env["MEMADMIN_DATA_DIR"] = str(tmp_path / "new")
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    keys = {start.communicate()[0].strip() for start in starts}
    assert [start.returncode for start in starts] == [0] * 8
    assert keys == {(tmp_path / "new" / "secret_key").read_text().strip()}
    assert not list((tmp_path / "new").glob("secret_key.*"))  # no draft left behind


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MEMADMIN_DEBUG", "maybe"),
        ("MEMADMIN_INLINE_MAX_BYTES", "lots"),
        ("MEMADMIN_TIME_ZONE", "Mars/Olympus"),
        ("MEMADMIN_DATABASE_URL", "mysql://db.internal/memadmin"),
        ("MEMADMIN_DATABASE_URL", "postgres://db.internal:port/memadmin"),
        ("MEMADMIN_DATABASE_URL", "postgres://db.internal"),
        ("MEMADMIN_PASSWORD_SIGN_IN", "false"),  # and no provider: nobody could sign in
        ("MEMADMIN_OIDC_CLIENT_ID", "memadmin"),  # and no issuer, endpoints or secret
        ("MEMADMIN_SIGN_IN_WIDE_FAILURES", "5"),  # below MEMADMIN_SIGN_IN_FAILURES
    ],
)
def test_a_bad_setting_stops_the_process_naming_the_variable(tmp_path, variable, value):
    result = _run(["check"], MEMADMIN_DATA_DIR=str(tmp_path), **{variable: value})
    assert result.returncode != 0
    assert variable in result.stderr


def test_settings_come_from_the_environment(tmp_path):
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.ALLOWED_HOSTS, s.TIME_ZONE, s.MEMADMIN_INLINE_MAX_BYTES, "
        "s.DATABASES['default']['NAME'])"
    )
    result = _run(
        ["shell", "-c", code],
        MEMADMIN_DATA_DIR=str(tmp_path),
        MEMADMIN_DEBUG="true",
        MEMADMIN_ALLOWED_HOSTS="memory.example.org",
        MEMADMIN_TIME_ZONE="Asia/Tokyo",
        MEMADMIN_INLINE_MAX_BYTES="1000",
        MEMADMIN_DATABASE_URL="",
    )
    assert result.stdout.strip().splitlines()[-1] == (
        f"True ['memory.example.org'] Asia/Tokyo 1000 {tmp_path / 'memadmin.sqlite3'}"
    )


def test_the_database_url_selects_postgresql(tmp_path):
    code = (
        "from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(d['ENGINE'], d['NAME'], d['USER'], d['PASSWORD'], d['HOST'], d['PORT'])"
    )
    result = _run(
        ["shell", "-c", code],
        MEMADMIN_DATA_DIR=str(tmp_path),
        MEMADMIN_DATABASE_URL="postgres://memadmin:s%40cret@db.internal:5433/memstore",
    )
    assert result.stdout.strip().splitlines()[-1] == (
        "memories.engine.postgresql.backend memstore memadmin s@cret db.internal 5433"
    )


def test_loading_the_wsgi_app_opens_no_database_connection(tmp_path):
    """gunicorn forks workers after loading the app: a connection opened before would be
    shared by every worker."""
    code = (
        "import memadmin.wsgi; from django.db import connections; "
        "print(connections['default'].connection is None)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMADMIN_DATA_DIR": str(tmp_path)},
    )
    assert result.stdout.strip() == "True", result.stderr


@pytest.mark.engine("sqlite")  # the store's own files: SQLite's
def test_the_data_dir_and_every_file_of_the_store_are_private(tmp_path):
    """The store, its -wal and -shm (made while a writer holds them open), the secret key:
    the owner's alone, in a directory no one else may list."""
    data_dir = tmp_path / "data"
    assert _run(["migrate", "--noinput", "-v0"], MEMADMIN_DATA_DIR=str(data_dir)).returncode == 0
    code = (
        "import os; from django.conf import settings; from projects import writes; "
        "writes.add('webdev'); "
        "print(' '.join(f'{p.name}={os.stat(p).st_mode & 0o777:o}' "
        "for p in sorted(settings.DATA_DIR.iterdir())))"
    )
    result = _run(["shell", "-c", code], MEMADMIN_DATA_DIR=str(data_dir))
    modes = dict(item.split("=") for item in result.stdout.strip().splitlines()[-1].split())
    assert modes == {
        "memadmin.sqlite3": "600",
        "memadmin.sqlite3-shm": "600",
        "memadmin.sqlite3-wal": "600",
        "secret_key": "600",
    }, result.stderr
    assert data_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.engine("sqlite")  # the store's own files: SQLite's
def test_a_store_made_before_is_narrowed_to_its_owner(tmp_path):
    tmp_path.chmod(0o755)
    store = tmp_path / "memadmin.sqlite3"
    sqlite3.connect(store).close()
    store.chmod(0o644)
    assert _run(["check"], MEMADMIN_DATA_DIR=str(tmp_path)).returncode == 0
    assert store.stat().st_mode & 0o777 == 0o600
    assert tmp_path.stat().st_mode & 0o777 == 0o700
