"""The engine seam: the dialect stays inside memories/engine, and every engine provides
what the seam promises."""

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import F, Q

from memories import engine
from memories.engine.hints import Unindexed, likelihood
from memories.models import Memory

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("memadmin", "memories", "projects", "templates")
ENGINE_DIR = ROOT / "memories" / "engine"
# The dialect's names: the search index's table and functions, its pattern operator, the
# JSON table function, connection pragmas, the schema table, the date function.
DIALECT = re.compile(
    r"fts5|memories_fts|json_each|\bpragma\b|sqlite_master|bm25|julianday", re.IGNORECASE
)
GLOB = re.compile(r"\bGLOB\b")  # upper case: Python's pathlib has a glob() of its own


def _scanned_files():
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in (".py", ".html") or "migrations" in path.parts:
                continue
            if path.is_relative_to(ENGINE_DIR):
                continue
            yield path


def test_nothing_outside_the_engine_names_the_dialect():
    """Comments and docstrings count: a newcomer reads them as where SQLite lives."""
    found = []
    for path in _scanned_files():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = DIALECT.search(line) or GLOB.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not found, "Move this behind memories.engine:\n" + "\n".join(found)


def test_the_scan_sees_the_files_it_guards():
    scanned = {path.relative_to(ROOT).as_posix() for path in _scanned_files()}
    assert "memories/reads/search.py" in scanned
    assert "memadmin/settings.py" in scanned
    assert "templates/memories/list.html" in scanned
    assert not any(name.startswith("memories/engine/") for name in scanned)


def _engine_packages() -> list[str]:
    return sorted(path.parent.name for path in ENGINE_DIR.glob("*/__init__.py"))


@pytest.mark.parametrize("vendor", _engine_packages())
def test_every_engine_provides_what_the_seam_lists(vendor):
    provided = engine.for_vendor(vendor)
    missing = [
        f"{module}.{name}"
        for module, names in engine.PROVIDES.items()
        for name in names
        if not hasattr(getattr(provided, module), name)
    ]
    assert not missing, f"the {vendor} engine lacks {', '.join(missing)}"
    for module, names in engine.PROVIDES.items():
        for name in names:
            assert name in engine.__doc__, f"{module}.{name} is not in the seam's docstring"


@pytest.mark.parametrize("vendor", _engine_packages())
def test_every_engine_module_provides_exactly_what_the_seam_lists(vendor):
    provided = engine.for_vendor(vendor)
    for module, names in engine.PROVIDES.items():
        declared = getattr(getattr(provided, module), "__all__", None)
        assert declared is not None, f"{vendor}.{module} declares no __all__"
        assert sorted(declared) == sorted(names), f"{vendor}.{module} drifts from the seam"


def _parameters(function) -> list[tuple[str, object]]:
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize(
    ("module", "name"),
    [(module, name) for module, names in engine.PROVIDES.items() for name in names],
)
def test_every_engine_takes_the_same_parameters(module, name):
    found = {
        vendor: getattr(getattr(engine.for_vendor(vendor), module), name)
        for vendor in _engine_packages()
    }
    callables = {vendor: value for vendor, value in found.items() if callable(value)}
    if not callables:
        return  # a constant
    assert len(callables) == len(found), f"{module}.{name} is a callable on some engines only"
    shapes = {vendor: _parameters(function) for vendor, function in callables.items()}
    if (module, name) == ("config", "database"):
        # Its options are the engine's own (a file's folder, a server's URL): the settings
        # name them per vendor. The busy timeout is every engine's.
        shapes = {
            vendor: [p for p in shape if p[0] == "busy_timeout_ms"]
            for vendor, shape in shapes.items()
        }
        assert all(shapes.values()), shapes
    assert len({repr(shape) for shape in shapes.values()}) == 1, shapes


@pytest.mark.parametrize(
    ("url", "vendor"),
    [("", "sqlite"), ("postgres://memadmin@127.0.0.1:5432/memadmin", "postgresql")],
)
def test_the_store_connection_gets_the_engine_the_settings_name(url, vendor, tmp_path):
    code = (
        "import django; django.setup(); from django.db import connection; "
        "from memories import engine; e = engine.of(connection); "
        "print(e.vendor, e.index.REBUILD_STEPS >= 1)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "memadmin.settings",
            "MEMADMIN_DATA_DIR": str(tmp_path),
            "MEMADMIN_DATABASE_URL": url,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert loaded.stdout.split() == [vendor, "True"]


def test_a_vendor_without_an_engine_is_refused_by_name():
    with pytest.raises(ImproperlyConfigured, match="no engine for 'oracle'"):
        engine.for_vendor("oracle")


@pytest.mark.parametrize(
    ("url", "backend"),
    [
        ("", "django.db.backends.sqlite3"),
        ("postgres://memadmin@127.0.0.1:5432/memadmin", "memories.engine.postgresql.backend"),
    ],
)
def test_the_settings_read_the_engine_without_loading_the_database_layer(tmp_path, url, backend):
    """The settings are read before Django is set up: what they take from the engine needs
    nothing of Django's database layer, which the engines load when first asked for."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, memadmin.settings as s; "
            "print(s.DATABASES['default']['ENGINE'], 'django.db' in sys.modules)",
        ],
        cwd=ROOT,
        env={**os.environ, "MEMADMIN_DATA_DIR": str(tmp_path), "MEMADMIN_DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert loaded.stdout.split() == [backend, "False"]


@pytest.mark.engine("sqlite")
def test_the_orm_hints_and_the_name_lookup_write_the_engines_sql(db):
    load = Unindexed(F("load"), output_field=Memory._meta.get_field("load"))
    hinted = Memory.objects.filter(
        likelihood(Q(priority__gt=1), 0.9), Q(load.get_lookup("exact")(load, "inline"))
    )
    sql = str(hinted.query)
    assert 'likelihood(("memories_memory"."priority" > 1), 0.9)' in sql
    assert '+"memories_memory"."load" = inline' in sql
    named = str(Memory.objects.filter(name__glob="[a-z]*").query)
    assert '"memories_memory"."name" GLOB [a-z]*' in named


@pytest.mark.engine("postgresql")
def test_postgresql_leaves_the_hints_to_its_statistics_and_matches_names_by_regex(db):
    load = Unindexed(F("load"), output_field=Memory._meta.get_field("load"))
    hinted = Memory.objects.filter(
        likelihood(Q(priority__gt=1), 0.9), Q(load.get_lookup("exact")(load, "inline"))
    )
    sql = str(hinted.query)
    assert '("memories_memory"."priority" > 1)' in sql and "likelihood" not in sql
    assert '"memories_memory"."load" = inline' in sql
    named = str(Memory.objects.filter(name__glob="[a-z]*").query)
    assert '"memories_memory"."name" ~ (' in named


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("[A-Za-z0-9]*", "deploy-host", True),
        ("[A-Za-z0-9]*", "-deploy", False),
        ("*[^A-Za-z0-9._-]*", "deploy.host_v2", False),
        ("*[^A-Za-z0-9._-]*", "deploy host", True),
        ("a?c", "abc", True),
        ("a?c", "a.c", True),
        ("a.c", "abc", False),
    ],
)
def test_the_name_lookup_matches_shell_patterns_on_every_engine(db, pattern, name, matches):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 WHERE " + engine.of(connection).statements.glob("%s", "%s"), [name, pattern]
        )
        assert bool(cursor.fetchall()) is matches
