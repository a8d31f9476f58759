"""Moving a store between engines: `memory export` from SQLite, `memory import` into
PostgreSQL, and back, give byte-identical snapshots (awkward bodies, created, verified and
read_count included)."""

from pathlib import Path

import pytest

from .conftest import manage, migrate, store_env

pytestmark = pytest.mark.engine("postgresql")  # needs a PostgreSQL server beside SQLite

FILL = """
import datetime as dt
from memories.models import Memory
from memories.writes import doors
from projects import writes as projects
projects.add("infra")
doors.write("crlf", description="Windows line ends", body="first\\r\\nsecond\\r\\n")
family = "\\U0001F468\\u200d\\U0001F469\\u200d\\U0001F467"
doors.write("zwj", description="A family emoji", body=family + " joined")
doors.write("blank-edges", description="Blank lines around", body="\\n\\n  indented\\n\\n\\n")
doors.write(
    "deploy-host", project="infra", description="Where releases go", body="host-7",
    references=["crlf", "/etc/hosts", "https://example.org/a?b=c"], tags=["infra", "deploy"],
    priority=1, load="inline", source="ops chat", expires="2031-01-02",
)
doors.write("tokyo", description="東京オフィスの会議室", body="三階")
for _ in range(3):
    doors.read("deploy-host", project="infra")
Memory.objects.filter(name="crlf").update(
    created_at=dt.datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=dt.UTC),
    verified_at=dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC),
)
"""


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def _sqlite(data_dir: Path) -> Path:
    """A data dir whose store is SQLite, whatever the suite's engine."""
    data_dir.mkdir(parents=True)
    (data_dir / "database-url").write_text("")
    return data_dir


def test_a_store_moves_from_sqlite_to_postgresql_and_back_byte_for_byte(tmp_path):
    lite, pg, back = _sqlite(tmp_path / "lite"), tmp_path / "pg", _sqlite(tmp_path / "back")
    assert store_env(lite)["MEMADMIN_DATABASE_URL"] == ""
    assert store_env(pg)["MEMADMIN_DATABASE_URL"].startswith("postgres://")
    for store in (lite, pg, back):
        migrate(store)
    manage(lite, "shell", "-c", FILL)
    manage(lite, "memory", "export", "--directory", str(tmp_path / "from-sqlite"))
    for store in (pg, back):
        manage(store, "project", "add", "infra")
    manage(pg, "memory", "import", str(tmp_path / "from-sqlite"))
    manage(pg, "memory", "export", "--directory", str(tmp_path / "from-postgresql"))
    manage(back, "memory", "import", str(tmp_path / "from-postgresql"))
    manage(back, "memory", "export", "--directory", str(tmp_path / "back-in-sqlite"))

    original = _tree(tmp_path / "from-sqlite")
    assert len(original) == 6, sorted(original)  # five memories and the manifest
    assert b"\r\n" in original["crlf.md"] and b"read_count: 3" in original["infra/deploy-host.md"]
    assert _tree(tmp_path / "from-postgresql") == original
    assert _tree(tmp_path / "back-in-sqlite") == original
    assert "sound" in manage(pg, "memory", "verify")
    assert "crlf" in manage(pg, "memory", "search", "second")
