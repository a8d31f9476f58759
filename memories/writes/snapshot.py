"""Snapshots of the store, as `memory export` writes them and `memory import` reads them.

One `<name>.md` per memory: YAML frontmatter (description; project for a project's memory;
priority and load when not the defaults; created; verified when it differs from created;
expires; source; read_count; references and tags when set; superseded_by for a memory a
correction superseded), then the body byte for byte.
The global tier is at the root, each project's memories in a folder of its name, and
`export.toml` beside them carries the format_version. The dashboard's zip holds the same tree.

Writing into the store is the import door's (memories.writes.imports.import_memories); this module
only turns memories into files and files into ImportEntry values.
"""

import datetime as dt
import os
import re
import shutil
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml
from django.utils import timezone

from memories.models import Memory
from memories.reads import listing
from memories.reads.filters import MemoryFilters
from memories.rules import fields as f
from memories.rules import tiers
from memories.rules.errors import InvalidField, SnapshotError
from memories.rules.tiers import ANY_TIER
from memories.writes.imports import ImportEntry

FORMAT_VERSION = 1
MANIFEST = "export.toml"
MANIFEST_TEXT = (
    "# A memadmin memory snapshot: one <name>.md per memory (YAML frontmatter, then the body),\n"
    "# the global tier at the root and each project's memories in a folder of its name.\n"
    f"format_version = {FORMAT_VERSION}\n"
)
DIR_MODE, FILE_MODE = 0o700, 0o600
KEYS = (
    "description",
    "project",
    "priority",
    "load",
    "created",
    "verified",
    "expires",
    "source",
    "read_count",
    "references",
    "tags",
    "superseded_by",
)
FRONTMATTER = re.compile(rb"---\r?\n(.*?\n)?---(?:\r?\n|\Z)", re.S)
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
# Characters YAML carries as they are; anything else goes through a dump-and-load check.
PLAIN_TEXT = re.compile("[\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]+")
MAX_ZIP_FILES = 200_000
MAX_UNZIPPED_BYTES = 512 * 1024 * 1024
# The largest memory file an export writes is its body (at most MAX_BODY_CHARS characters,
# up to four bytes each in UTF-8) beside a frontmatter of at most some 200 KiB (20 references,
# 50 tags, the description): a file past this holds no memory the doors would take, so it is
# refused as it is read, before it is all in memory.
MAX_FILE_BYTES = 5 * 1024 * 1024
READ_CHUNK = 1024 * 1024


class _Timestamp(str):
    """An RFC 3339 instant written as a plain YAML timestamp rather than a quoted string."""


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    pass


_Dumper.add_representer(
    _Timestamp,
    lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:timestamp", str(value)),
)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml(data: dict) -> str:
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1 << 30)


# ---------------------------------------------------------------------------------------
# Export


def relative_path(name: str, project: str | None) -> str:
    return f"{name}.md" if project is None else f"{project}/{name}.md"


def carried_description(name: str, project: str | None, description: str) -> str:
    """The one-line form the description is written in; refused when YAML cannot carry it.

    Every write door collapses a description to one line, so this is what is stored. Only
    a row written past the doors can fail here: blank once collapsed, a NUL, or characters
    the YAML emitter does not give back as they were.
    """
    try:
        form = f.one_line(description, "description")
        problem = None if form is not None else "is blank once collapsed to one line"
    except InvalidField:
        form, problem = None, "holds a NUL character"
    if form is not None and not PLAIN_TEXT.fullmatch(form):
        try:
            carried = yaml.load(_yaml({"d": form}), Loader=_Loader)["d"]
        except yaml.YAMLError:
            carried = None
        if carried != form:
            problem = "holds characters YAML cannot carry"
    if problem is not None:
        raise SnapshotError(
            f"The description of {tiers.memory_label(name, project)} {problem}, so no snapshot "
            "can carry it; give it a description and export again. Nothing was exported.",
            name=name,
            project=project,
        )
    return form


def render(memory: Memory) -> bytes:
    """The file of one memory: its frontmatter, then its body exactly as stored."""
    project = memory.project_name
    data: dict = {"description": carried_description(memory.name, project, memory.description)}
    if project is not None:
        data["project"] = project
    if memory.priority != f.DEFAULT_PRIORITY:
        data["priority"] = memory.priority
    if memory.load != f.DEFAULT_LOAD:
        data["load"] = memory.load
    data["created"] = _Timestamp(f.rfc3339(memory.created_at))
    if memory.verified_at != memory.created_at:
        data["verified"] = _Timestamp(f.rfc3339(memory.verified_at))
    if memory.expires_at is not None:
        data["expires"] = _Timestamp(f.rfc3339(memory.expires_at))
    if memory.source:
        data["source"] = memory.source
    data["read_count"] = memory.read_count
    if memory.references:
        data["references"] = list(memory.references)
    if memory.tags:
        data["tags"] = list(memory.tags)
    if memory.superseded_by:
        data["superseded_by"] = memory.superseded_by
    return b"---\n" + _yaml(data).encode("utf-8") + b"---\n" + memory.body.encode("utf-8")


def export_queryset(project=ANY_TIER):
    """The memories a snapshot of `project` (ANY_TIER: every tier; None: the global one) holds."""
    return listing.memories(MemoryFilters(project=project), sort="name")


def _check_exportable(queryset) -> None:
    """Refuse before anything is written: descriptions YAML cannot carry, colliding paths."""
    root_files = {MANIFEST}
    projects = set()
    for name, project, description in queryset.values_list(
        "name", "project__name", "description"
    ).iterator(chunk_size=2000):
        carried_description(name, project, description)
        if project is None:
            root_files.add(relative_path(name, None))
        else:
            projects.add(project)
    for project in sorted(projects & root_files):
        raise SnapshotError(
            f"Project '{project}' would be written as a folder of the same name as the file "
            f"'{project}' at the root; rename the project and export again. Nothing was exported.",
            project=project,
        )


@dataclass
class ExportResult:
    directory: Path
    count: int


def _prepare_directory(directory: Path) -> Path | None:
    """Create (0700) or tighten the directory; returns the topmost folder it created."""
    if directory.exists() or directory.is_symlink():
        if not directory.is_dir():
            raise SnapshotError(f"'{directory}' is not a directory.", directory=str(directory))
        if any(directory.iterdir()):
            raise SnapshotError(
                f"'{directory}' is not empty; an export goes into a new or empty directory, "
                "so that it matches the store exactly.",
                directory=str(directory),
            )
        directory.chmod(DIR_MODE)
        return None
    top = directory
    while not top.parent.exists():
        top = top.parent
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        directory.mkdir(mode=DIR_MODE)
        directory.chmod(DIR_MODE)
    except OSError as error:
        if top.exists() and top != directory.parent:
            shutil.rmtree(top, ignore_errors=True)
        raise SnapshotError(
            f"Could not create '{directory}': {error.strerror}.", directory=str(directory)
        ) from None
    return top


def _write_file(path: Path, data: bytes) -> None:
    """A new file holding `data`; one that could not be written whole (the disk or the
    file-size limit ran out partway) is removed, not left truncated."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), FILE_MODE)
            handle.write(data)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def export_directory(
    directory, *, project=ANY_TIER, progress: Callable[[int], None] | None = None
) -> ExportResult:
    """Write a snapshot into a new or empty directory; a failure partway removes it all."""
    directory = Path(directory).expanduser()
    queryset = export_queryset(project)
    _check_exportable(queryset)
    created_top = _prepare_directory(directory)
    written: list[Path] = []
    count = 0
    try:
        _write_file(directory / MANIFEST, MANIFEST_TEXT.encode("utf-8"))
        written.append(directory / MANIFEST)
        folders: set[str] = set()
        for memory in queryset.iterator(chunk_size=1000):
            if memory.project_id is not None and memory.project_name not in folders:
                folder = directory / memory.project_name
                folder.mkdir(mode=DIR_MODE)
                written.append(folder)
                folder.chmod(DIR_MODE)
                folders.add(memory.project_name)
            path = directory / relative_path(memory.name, memory.project_name)
            _write_file(path, render(memory))
            written.append(path)
            count += 1
            if progress is not None:
                progress(1)
    except BaseException as error:
        if created_top is not None:
            shutil.rmtree(created_top, ignore_errors=True)
        else:
            for path in reversed(written):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise SnapshotError(
                f"Could not write '{error.filename or directory}': {error.strerror}; "
                "what the export had written was removed.",
                directory=str(directory),
            ) from None
        raise
    return ExportResult(directory=directory, count=count)


def export_zip(stream, *, project=ANY_TIER) -> int:
    """The same snapshot as a zip archive written to `stream`; returns the memory count."""
    queryset = export_queryset(project)
    _check_exportable(queryset)
    stamp = timezone.localtime().timetuple()[:6]
    count = 0
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:

        def add(path: str, data: bytes, mode: int) -> None:
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)

        add(MANIFEST, MANIFEST_TEXT.encode("utf-8"), 0o100000 | FILE_MODE)
        folders: set[str] = set()
        for memory in queryset.iterator(chunk_size=1000):
            if memory.project_id is not None and memory.project_name not in folders:
                add(memory.project_name + "/", b"", 0o040000 | DIR_MODE)
                folders.add(memory.project_name)
            add(
                relative_path(memory.name, memory.project_name),
                render(memory),
                0o100000 | FILE_MODE,
            )
            count += 1
    return count


# ---------------------------------------------------------------------------------------
# Import


def read_manifest(data: bytes) -> dict:
    """The manifest, refused when it is not one or names a format_version we do not read."""
    try:
        manifest = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SnapshotError(f"{MANIFEST} is not valid TOML ({error}).") from None
    version = manifest.get("format_version")
    if version is None:
        raise SnapshotError(
            f"{MANIFEST} carries no format_version, so this is not a snapshot memadmin can read."
        )
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise SnapshotError(
            f"This snapshot is format_version {version}; this memadmin reads "
            f"format_version {FORMAT_VERSION} only.",
            format_version=version,
        )
    return manifest


def _instant(value, key: str, path: str) -> dt.datetime:
    if isinstance(value, str) and RFC3339.fullmatch(value.strip()):
        value = dt.datetime.fromisoformat(value.strip().replace("z", "Z"))
    if not isinstance(value, dt.datetime) or timezone.is_naive(value):
        raise SnapshotError(
            f"'{path}': {key} must be an RFC 3339 timestamp with a zone, "
            "such as 2026-10-25T18:00:00Z.",
            path=path,
        )
    return value


def _text(value, key: str, path: str) -> str:
    if not isinstance(value, str):
        raise SnapshotError(f"'{path}': {key} must be text.", path=path)
    return value


def _lines(value, key: str, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SnapshotError(f"'{path}': {key} must be a list of text lines.", path=path)
    return value


def _whole(value, key: str, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"'{path}': {key} must be a whole number.", path=path)
    return value


def parse(path: str, data: bytes) -> ImportEntry:
    """One memory file of a snapshot; `path` is relative to its root, as export writes it."""
    parts = PurePosixPath(path).parts
    if len(parts) > 2 or not parts[-1].endswith(".md") or parts[-1] == ".md":
        raise SnapshotError(
            f"'{path}' is not where a snapshot keeps a memory: <name>.md at the root for the "
            "global tier, <project>/<name>.md for a project's.",
            path=path,
        )
    name = parts[-1][: -len(".md")]
    folder = parts[0] if len(parts) == 2 else None
    match = FRONTMATTER.match(data)
    if match is None:
        raise SnapshotError(
            f"'{path}' does not start with YAML frontmatter between two '---' lines.", path=path
        )
    try:
        front = yaml.load((match.group(1) or b"").decode("utf-8"), Loader=_Loader)
        body = data[match.end() :].decode("utf-8")
    except UnicodeDecodeError:
        raise SnapshotError(f"'{path}' is not UTF-8 text.", path=path) from None
    except yaml.YAMLError as error:
        problem = str(getattr(error, "problem", None) or error).splitlines()[0]
        raise SnapshotError(
            f"'{path}': the frontmatter is not valid YAML ({problem}).", path=path
        ) from None
    if not isinstance(front, dict):
        raise SnapshotError(f"'{path}': the frontmatter is not a set of fields.", path=path)
    unknown = [str(key) for key in front if key not in KEYS]
    if unknown:
        raise SnapshotError(
            f"'{path}': unknown field {', '.join(repr(key) for key in unknown)} in the "
            "frontmatter.",
            path=path,
        )
    for key in ("description", "created"):
        if front.get(key) is None:
            raise SnapshotError(f"'{path}' has no {key}.", path=path)
    project = front.get("project")
    if project is not None:
        project = _text(project, "project", path)
    if project != folder:
        where = "at the root, where the global tier is" if folder is None else f"in '{folder}'"
        said = "no project" if project is None else f"project '{project}'"
        raise SnapshotError(f"'{path}' says {said} but sits {where}.", path=path)
    expires = front.get("expires")
    if isinstance(expires, dt.date) and not isinstance(expires, dt.datetime):
        expires = expires.isoformat()  # a whole day, as a write's YYYY-MM-DD means
    elif expires is not None and not isinstance(expires, str):
        expires = _instant(expires, "expires", path)
    verified = front.get("verified")
    return ImportEntry(
        name=name,
        project=project,
        description=_text(front["description"], "description", path),
        created_at=_instant(front["created"], "created", path),
        body=body,
        tags=_lines(front.get("tags", []), "tags", path),
        references=_lines(front.get("references", []), "references", path),
        priority=None if "priority" not in front else _whole(front["priority"], "priority", path),
        load=None if "load" not in front else _text(front["load"], "load", path),
        source=None if "source" not in front else _text(front["source"], "source", path),
        verified_at=None if verified is None else _instant(verified, "verified", path),
        expires_at=expires,
        read_count=_whole(front.get("read_count", 0), "read_count", path),
        superseded_by=(
            None
            if front.get("superseded_by") is None
            else _text(front["superseded_by"], "superseded_by", path)
        ),
    )


def _read_bounded(handle, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A file's bytes, read a chunk at a time (a zip entry is decompressed as it is read)
    and refused as soon as it passes `limit` or MAX_FILE_BYTES, whichever is lower."""
    limit = min(limit, MAX_FILE_BYTES)
    chunks, size = [], 0
    while chunk := handle.read(min(READ_CHUNK, limit - size + 1)):
        size += len(chunk)
        if size > limit:
            if limit < MAX_FILE_BYTES:
                raise SnapshotError(
                    f"The archive unpacks to more than {MAX_UNZIPPED_BYTES // 2**20} MiB."
                )
            raise SnapshotError(
                f"'{path}' is larger than a memory file can be ({MAX_FILE_BYTES // 2**20} MiB).",
                path=path,
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _skipped(path: str) -> bool:
    """What a snapshot kept in git or zipped on a Mac carries beside the memories."""
    first = PurePosixPath(path).parts[0]
    return any(part.startswith(".") for part in PurePosixPath(path).parts) or first == "__MACOSX"


def _entries(
    files: dict[str, Callable[[], bytes]], progress: Callable[[int], None] | None
) -> list[ImportEntry]:
    if MANIFEST not in files:
        raise SnapshotError(
            f"There is no {MANIFEST} beside the memory files, so this is not a memadmin snapshot."
        )
    read_manifest(files.pop(MANIFEST)())
    entries = []
    for path in sorted(files):
        entries.append(parse(path, files[path]()))
        if progress is not None:
            progress(1)
    return entries


def snapshot_files(directory) -> dict[str, Path]:
    """Every file of a snapshot directory by its relative path, refusing what it cannot hold."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        raise SnapshotError(f"'{directory}' is not a directory.", directory=str(directory))
    files: dict[str, Path] = {}
    for folder, folders, names in os.walk(directory):
        folders[:] = [name for name in folders if not name.startswith(".") and name != "__MACOSX"]
        for name in names:
            path = Path(folder, name)
            relative = path.relative_to(directory).as_posix()
            if not _skipped(relative):
                files[relative] = path
    return files


def read_directory(
    directory, *, progress: Callable[[int], None] | None = None
) -> list[ImportEntry]:
    """The memories of a snapshot directory, the manifest read and checked first."""
    files = snapshot_files(directory)

    def reader(relative: str, path: Path) -> Callable[[], bytes]:
        def read() -> bytes:
            try:
                with path.open("rb") as handle:
                    return _read_bounded(handle, relative)
            except OSError as error:
                raise SnapshotError(f"Could not read '{path}': {error.strerror}.") from None

        return read

    return _entries(
        {relative: reader(relative, path) for relative, path in files.items()}, progress
    )


def count_files(directory) -> int:
    """How many memory files a snapshot directory holds, for a progress bar."""
    return sum(1 for relative in snapshot_files(directory) if relative != MANIFEST)


def read_zip(stream) -> list[ImportEntry]:
    """The memories of a snapshot zip, as the dashboard downloads it (or the folder zipped)."""
    try:
        archive = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError):
        raise SnapshotError("The upload is not a zip archive.") from None
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        if len(infos) > MAX_ZIP_FILES:
            raise SnapshotError(f"The archive holds more than {MAX_ZIP_FILES:,} files.")
        if sum(info.file_size for info in infos) > MAX_UNZIPPED_BYTES:
            raise SnapshotError(
                f"The archive unpacks to more than {MAX_UNZIPPED_BYTES // 2**20} MiB."
            )
        by_path: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            path = PurePosixPath(info.filename)
            if path.is_absolute() or ".." in path.parts or "\\" in info.filename:
                raise SnapshotError(f"The archive holds an unsafe path, '{info.filename}'.")
            if _skipped(info.filename):
                continue
            if path.as_posix() in by_path:
                raise SnapshotError(
                    f"The archive holds '{path.as_posix()}' more than once, so which of them "
                    "is the memory is unknown; zip the snapshot again. Nothing was imported.",
                    path=path.as_posix(),
                )
            if info.file_size > MAX_FILE_BYTES:
                raise SnapshotError(
                    f"'{info.filename}' is larger than a memory file can be "
                    f"({MAX_FILE_BYTES // 2**20} MiB).",
                    path=info.filename,
                )
            by_path[path.as_posix()] = info
        # The snapshot folder zipped whole: everything under one folder holding the manifest.
        tops = {PurePosixPath(path).parts[0] for path in by_path}
        if MANIFEST not in by_path and len(tops) == 1:
            top = tops.pop()
            if f"{top}/{MANIFEST}" in by_path:
                by_path = {path[len(top) + 1 :]: info for path, info in by_path.items()}

        unpacked = 0

        def reader(info: zipfile.ZipInfo) -> Callable[[], bytes]:
            def read() -> bytes:
                nonlocal unpacked
                try:
                    with archive.open(info) as handle:
                        data = _read_bounded(handle, info.filename, MAX_UNZIPPED_BYTES - unpacked)
                except (zipfile.BadZipFile, OSError, EOFError) as error:
                    raise SnapshotError(f"Could not read '{info.filename}' ({error}).") from None
                unpacked += len(data)
                return data

            return read

        return _entries({path: reader(info) for path, info in by_path.items()}, None)
