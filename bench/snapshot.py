"""Export and import speed over a large store.

    .venv/bin/python bench/snapshot.py [N]

Builds a store of N memories (default 20,000) in bench/out/snapshot/ through the import
door, then times an export to a directory, reading it back, the dry run, an import over it
with --force (every memory overwritten, one transaction), an import into an empty store,
and the dashboard's zip. Prints one line per step.
"""

import datetime as dt
import io
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out" / "snapshot"
sys.path.insert(0, str(ROOT))
shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
os.environ["MEMADMIN_DATA_DIR"] = str(OUT)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from memories.models import Memory  # noqa: E402
from memories.writes import imports, snapshot  # noqa: E402
from projects import writes as project_doors  # noqa: E402


def timed(label: str, function):
    start = time.perf_counter()
    result = function()
    print(f"{label:<44} {time.perf_counter() - start:8.2f} s")
    return result


def main(count: int) -> None:
    call_command("migrate", verbosity=0)
    projects = ["webdev", "infra", "movie", "research"]
    for name in projects:
        project_doors.add(name)
    created = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    entries = [
        imports.ImportEntry(
            name=f"note-{n:06d}",
            project=None if n % 3 == 0 else projects[n % len(projects)],
            description=f"Decision {n}: the service moved to worker pool {n % 17}",
            created_at=created + dt.timedelta(minutes=n),
            body=("Decided after the review.\r\n" * (1 + n % 8)) + "東京 \u200d",
            tags=["infra", "decisions"][: n % 3],
            references=[f"note-{max(n - 1, 0):06d}"] if n % 4 == 0 else [],
            priority=n % 20,
            read_count=n % 50,
        )
        for n in range(count)
    ]
    timed(f"build: import door, {count} new memories", lambda: imports.import_memories(entries))
    first, second = OUT / "first", OUT / "second"
    timed("export to a directory", lambda: snapshot.export_directory(first))
    read = timed("read the directory back", lambda: snapshot.read_directory(first))
    timed("dry run (preview_import, force)", lambda: imports.preview_import(read, force=True))
    timed("import --force over every memory", lambda: imports.import_memories(read, force=True))
    Memory.objects.all().delete()
    timed("import into an empty store", lambda: imports.import_memories(read))
    timed("export again", lambda: snapshot.export_directory(second))
    archive = io.BytesIO()
    timed("the dashboard zip", lambda: snapshot.export_zip(archive))
    archive.seek(0)
    timed("read the zip", lambda: snapshot.read_zip(archive))
    size = sum(path.stat().st_size for path in first.rglob("*") if path.is_file())
    zipped = len(archive.getvalue())
    print(f"snapshot: {count} files, {size / 2**20:.1f} MiB; zip {zipped / 2**20:.1f} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
