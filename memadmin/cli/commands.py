"""The bodies of `manage.py memory ...` and `manage.py project ...`.

Each parses its options, calls the doors and reads, and prints. A refusal of the domain
becomes a CommandError carrying the domain's sentence (a non-zero exit), and lands nothing.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError, OutputWrapper
from django.db import connection
from django.utils import timezone

from memadmin.cli.progress import Progress
from memories import embedding, engine
from memories.models import Memory
from memories.reads import backlinks, find, lookup
from memories.reads.filters import FILTERS, MemoryFilterForm
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.captions import age, short_age, verified_since_recorded
from memories.rules.errors import AmbiguousName, DomainError, NameTaken
from memories.rules.fields import rfc3339
from memories.writes import doors, imports, snapshot, vectors, wordings
from projects import reads as project_reads
from projects import writes as project_doors


@contextmanager
def refusals():
    """The domain's refusals as the command's error, in its one sentence."""
    try:
        yield
    except AmbiguousName as error:
        listed = ", ".join(f"'{p}'" for p in error.details["projects"])
        raise CommandError(
            f"The name '{error.details['name']}' is held by several projects ({listed}); "
            "name one with --project."
        ) from None
    except DomainError as error:
        raise CommandError(error.message) from None


@contextmanager
def piped():
    """A reader that stops early (`| head`) ends the command quietly, as it would `cat`."""
    try:
        yield
    except BrokenPipeError:
        # Python flushes stdout again at exit; point it at /dev/null so that stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def _dump(out: OutputWrapper, data) -> None:
    out.write(json.dumps(data, ensure_ascii=False, indent=2))


def _write_exact(out: OutputWrapper, text: str) -> None:
    """Text byte for byte: straight to the binary stream when there is one (CRLF kept)."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(text, ending="")
        return
    out.flush()
    buffer.write(text.encode("utf-8"))
    buffer.flush()


def _table(out: OutputWrapper, header: list[str], rows: list[list[str]]) -> None:
    """Columns padded to their widest cell; the last one runs on (cut to a terminal's width)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    limit = shutil.get_terminal_size().columns if out.isatty() else None
    for row in [header, *rows]:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        line = f"{line}  {row[-1]}"
        if limit and len(line) > limit:
            line = line[: limit - 1] + "…"
        out.write(line.rstrip())


# ---------------------------------------------------------------------------------------
# memory list / get / show


def _filter_form(options: dict, **data) -> MemoryFilterForm:
    """The filter options of `memory list` and `memory search` read by the filter form the
    pages and /v1 use, so a bad value is refused in the same words."""
    for flt in FILTERS:
        value = options.get(flt.key)
        if flt.argument_schema.get("type") == "boolean":
            data[flt.key] = "true" if value else ""
        elif value is not None:
            data[flt.key] = value
    if options.get("mode") is not None:
        data["mode"] = options["mode"]
    form = MemoryFilterForm(data)
    if not form.is_valid():
        raise CommandError(form.first_error())
    return form


def list_memories(out: OutputWrapper, *, format, **options) -> None:
    with refusals():
        found = find.find(find.Question.of(_filter_form(options)), find.EVERY)
        rows = list(found.memories)
    now = found.now
    if format == "json":
        _dump(out, {"memories": [memory.to_dict(now) for memory in rows]})
        return
    if rows:
        _table(
            out,
            ["NAME", "PROJECT", "PRI", "LOAD", "AGE", "VERIFIED", "READS", "DESCRIPTION"],
            [
                [
                    m.name,
                    tiers.column(m.project_name),
                    str(m.priority),
                    m.load,
                    short_age(m.created_at, now),
                    short_age(m.verified_at, now) if verified_since_recorded(m) else "-",
                    str(m.read_count),
                    _out_of_force(m, now) + m.description,
                ]
                for m in rows
            ],
        )
    out.write(found.summary + ".")


def _out_of_force(memory, now=None) -> str:
    """A memory's mark when no longer in force: "[superseded by 'x'] ", "[expired] " or ""."""
    if not memory.is_expired(now):
        return ""
    if memory.superseded_by:
        return f"[superseded by '{memory.superseded_by}'] "
    return "[expired] "


def search_memories(out: OutputWrapper, *, queries, limit, format, **options) -> None:
    """`memory search`: hybrid unless --mode says words or meaning."""
    form = _filter_form(options, q=queries, limit=str(limit))
    with refusals():
        found = find.find(find.Question.of(form), find.Page(limit=form.cleaned_data["limit"]))
    if format == "json":
        _dump(out, {"memories": list(found.dicts())})
        return
    for line in [found.summary, *found.notes]:
        out.write(line)
    for hit in found.hits:
        memory = hit.memory
        marks = [f"{memory.read_count} reads", f"age {short_age(memory.created_at)}"]
        if hit.verified_since_recorded:
            marks.append("verified")
        if memory.is_expired() and memory.superseded_by:
            marks.append(f"SUPERSEDED by '{memory.superseded_by}'")
        elif memory.is_expired():
            marks.append("EXPIRED")
        if hit.by_meaning_only:
            marks.append(f"similar in meaning ({hit.similarity:.2f})")
        out.write(
            f"{memory.name}  [{tiers.label(memory.project_name)}]  p{memory.priority}  "
            f"{hit.matched_by} {hit.score:.3f}  {', '.join(marks)}"
        )
        out.write(f"    {memory.description}")
        if hit.scanned_terms:
            out.write("    found as text: " + ", ".join(hit.scanned_terms))


def _locate(name: str, project) -> Memory:
    with refusals():
        return lookup.locate(name, memory_fields.tier(project))


def _when(moment, now) -> str:
    if moment is None:
        return "-"
    return f"{rfc3339(moment)} ({age(moment, now)})"


def get_memory(out: OutputWrapper, *, name, project, format, **_) -> None:
    memory = _locate(name, project)
    now = timezone.now()
    if format == "json":
        _dump(out, {**memory.to_dict(now), "referenced_by": backlinks.backlink_dicts(memory)})
        return
    references = [
        ref.target + (f"  ({ref.memory.description})" if ref.memory else "  (names no memory)")
        for ref in backlinks.resolve_references(memory)
    ]
    citing = [
        f"{m.name} ({tiers.label(m.project_name)}): {m.description}"
        for m in backlinks.referenced_by(memory)
    ]
    expires = _when(memory.expires_at, now)
    if memory.is_expired(now):
        expires += ", expired"
    fields = [
        ("name", memory.name),
        ("project", tiers.column(memory.project_name)),
        ("description", memory.description),
        ("priority", str(memory.priority)),
        ("load", memory.load),
        ("tags", ", ".join(memory.tags) or "-"),
        ("references", references or ["-"]),
        ("source", memory.source or "-"),
        ("created", _when(memory.created_at, now)),
        ("updated", _when(memory.updated_at, now)),
        (
            "verified",
            _when(memory.verified_at, now)
            if verified_since_recorded(memory)
            else "not verified since it was created",
        ),
        ("expires", expires),
        ("read_count", str(memory.read_count)),
        ("referenced by", citing or ["-"]),
        ("body", f"{len(memory.body)} characters, {memory.body_bytes} bytes"),
    ]
    for label, value in fields:
        lines = value if isinstance(value, list) else [value]
        out.write(f"{label + ':':<15}{lines[0]}")
        for line in lines[1:]:
            out.write(" " * 15 + line)
    if memory.body:
        out.write("")
        _write_exact(out, memory.body if memory.body.endswith("\n") else memory.body + "\n")


def show_memory(out: OutputWrapper, *, name, project, format, **_) -> None:
    memory = _locate(name, project)
    if format == "json":
        _dump(out, {**memory.to_dict(), "body": memory.body})
        return
    _write_exact(out, memory.body)


# ---------------------------------------------------------------------------------------
# memory add / edit / remove


def _read_body(from_file: str) -> str:
    try:
        data = sys.stdin.buffer.read() if from_file == "-" else Path(from_file).read_bytes()
    except OSError as error:
        raise CommandError(f"Could not read '{from_file}': {error.strerror}.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"'{from_file}' is not UTF-8 text.") from None


@contextmanager
def _worded_for_add(name: str, force: bool):
    """The write door's refusal of a name already held, with the remedy this command has."""
    try:
        yield
    except NameTaken as taken:
        raise CommandError(
            f"'{name}' is already a memory of {tiers.phrase(taken.details['project'])}; "
            "--force updates it, keeping what you do not mention."
        ) from None
    except AmbiguousName:
        if force:
            raise
        raise CommandError(
            f"'{name}' is already a memory of several projects; name one with --project and "
            "add --force to update it."
        ) from None


def add_memory(
    out: OutputWrapper,
    *,
    name,
    description,
    body,
    from_file,
    priority,
    tags,
    references,
    load,
    expires,
    source,
    project,
    force,
    verified,
    allow_secret,
    supersedes=None,
    **_,
) -> None:
    if body is not None and from_file is not None:
        raise CommandError("Give the body with --body or with --from-file, not both.")
    if from_file is not None:
        body = _read_body(from_file)
    with refusals(), _worded_for_add(name, force):
        result = doors.write(
            name,
            project=memory_fields.tier(project),
            description=description,
            body=body,
            tags=tags,
            references=references,
            priority=priority,
            load=load,
            source=source,
            expires=expires,
            verified=verified,
            must_create=not force,
            supersedes=supersedes,
            allow_secret=allow_secret,  # whoever runs the commands holds the store: an admin
        )
    memory = result.memory
    if not result.changed:
        out.write(result.notes[0])
        return
    out.write(
        f"{'Saved' if result.created else 'Updated'} memory '{memory.name}' in "
        f"{tiers.phrase(memory.project_name)} (priority {memory.priority}, load {memory.load})."
    )
    for note in result.notes:
        out.write(f"Note: {note}")


def _editor() -> list[str]:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not command or not command.strip():
        raise CommandError("Set $VISUAL or $EDITOR to the editor to open the body in.")
    return shlex.split(command)


def edit_memory(out: OutputWrapper, *, name, project, verified, **_) -> None:
    """$VISUAL (then $EDITOR) on the body; refused if the body changed while it was open."""
    memory = _locate(name, project)
    editor = _editor()
    original = memory.body
    folder = Path(tempfile.mkdtemp(prefix="memadmin-edit-"))
    path = folder / f"{memory.name}.md"
    keep = False
    try:
        path.write_bytes(original.encode("utf-8"))
        path.chmod(0o600)
        try:
            finished = subprocess.run([*editor, str(path)], check=False)
        except OSError as error:
            raise CommandError(
                f"Could not start the editor '{editor[0]}': {error.strerror}."
            ) from None
        if finished.returncode != 0:
            raise CommandError(
                f"The editor exited with status {finished.returncode}; nothing was saved."
            )
        try:
            edited = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            keep = True
            raise CommandError(
                f"The edited text is not UTF-8; nothing was saved. It is kept in {path}."
            ) from None
        if edited == original and not verified:
            out.write(f"No change to '{memory.name}'; nothing was saved.")
            return
        try:
            with refusals():
                result = doors.write(
                    memory.name,
                    project=memory.project_name,
                    body=None if edited == original else edited,
                    verified=verified,
                    expect_body=original,
                )
        except CommandError as error:
            keep = True
            raise CommandError(f"{error} Your text is kept in {path}.") from None
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    words = "Verified" if edited == original else "Saved the new body of"
    out.write(f"{words} '{memory.name}' in {tiers.phrase(result.memory.project_name)}.")
    for note in result.notes:
        out.write(f"Note: {note}")


def remove_memory(out: OutputWrapper, *, name, project, **_) -> None:
    with refusals():
        result = doors.delete(name, project=memory_fields.tier(project))
    out.write(f"Removed memory '{result.name}' from {tiers.phrase(result.project)}.")
    if result.referenced_by:
        out.write(result.still_referenced())


def move_memory(out: OutputWrapper, *, name, project, to, **_) -> None:
    """Re-file a memory in another tier through the move door, as PUT's "project" key does."""
    with refusals():
        result = doors.move(name, project=memory_fields.tier(project), to=memory_fields.tier(to))
    memory = result.memory
    if not result.changed:
        out.write(result.notes[0])
        return
    out.write(f"Moved memory '{memory.name}' to {tiers.phrase(memory.project_name)}.")
    for note in result.notes:
        out.write(f"Note: {note}")


# ---------------------------------------------------------------------------------------
# memory export / import / verify


def _count(number: int) -> str:
    return f"{number} {'memory' if number == 1 else 'memories'}"


def export(out: OutputWrapper, err: OutputWrapper, *, directory, project, **_) -> None:
    with refusals():
        total = snapshot.export_queryset(memory_fields.tier(project)).count()
        with Progress(err, total, "Exporting") as bar:
            result = snapshot.export_directory(
                directory, project=memory_fields.tier(project), progress=bar.advance
            )
    out.write(f"Exported {_count(result.count)} to {result.directory}.")


def import_(out: OutputWrapper, err: OutputWrapper, *, directory, force, dry_run, **_) -> None:
    with refusals():
        with Progress(err, snapshot.count_files(directory), "Reading") as bar:
            entries = snapshot.read_directory(directory, progress=bar.advance)
        if dry_run:
            plan = imports.preview_import(entries, force=force)
            for planned in plan.overwritten:
                out.write(f"would overwrite {planned.entry.label}")
            for planned in plan.refused:
                out.write(f"refused {planned.entry.label}: {planned.reason}")
            out.write(
                f"{_count(len(entries))} in the snapshot: {len(plan.added)} would be added, "
                f"{len(plan.overwritten)} overwritten, {len(plan.refused)} refused."
            )
            if not plan.ok:
                raise plan.refusal()
            out.write("Nothing was imported (a dry run).")
            return
        with Progress(err, len(entries), "Importing") as bar:
            result = imports.import_memories(entries, force=force, progress=bar.advance)
    out.write(
        f"Imported {_count(len(entries))} from {directory}: {len(result.added)} added, "
        f"{len(result.overwritten)} overwritten."
    )


def verify(out: OutputWrapper, err: OutputWrapper, *, rebuild: bool, **_) -> None:
    index = engine.of(connection).index
    if rebuild:
        with Progress(err, index.REBUILD_STEPS, "Rebuilding") as bar:
            restored = index.rebuild(progress=bar.advance)
        if restored:
            out.write("Put back missing triggers: " + ", ".join(restored))
        out.write("Rebuilt the search index, references and tags from the table.")
    report = index.check()
    if not report.ok:
        raise _out_of_step(
            "The search index is",
            report.problems,
            "`manage.py memory verify --rebuild` to regenerate it",
        )
    out.write(
        f"The search index is sound and holds {report.documents} documents "
        f"for {report.rows} memories."
    )

    def embed_again(found: vectors.VectorReport) -> None:
        with Progress(err, len(found.to_mend), "Embedding") as bar:
            vectors.mend(found, progress=bar.advance)

    _checked(
        out,
        vectors.check,
        embed_again if rebuild else None,
        mended="Embedded again",
        what="The vectors are",
        remedy="`manage.py memory verify --rebuild` (or `memory embed`) to mend them",
        sound=f"Every memory has a vector of {embedding.MODEL_VERSION}.",
    )
    _checked(
        out,
        wordings.check,
        wordings.mend if rebuild else None,
        mended="Worked out again",
        what="The wording keys are",
        remedy="`manage.py memory verify --rebuild` to work them out again",
        sound="Every memory's wording key is its description's.",
    )


def _checked(out: OutputWrapper, check, mend, *, mended: str, what: str, remedy: str, sound: str):
    """One of verify's checks: what it finds mended (with `mend`, on --rebuild) and checked
    again, refused with its problems while any is left, `sound` said when none is."""
    found = check()
    if not found.ok and mend is not None:
        mend(found)
        out.write(f"{mended}: " + "; ".join(found.problems) + ".")
        found = check()
    if not found.ok:
        raise _out_of_step(what, found.problems, remedy)
    out.write(sound)


def _out_of_step(what: str, problems: list[str], remedy: str) -> CommandError:
    return CommandError(f"{what} out of step: " + "; ".join(problems) + f". Run {remedy}.")


def _embed(err: OutputWrapper, memory_ids: list[int]) -> int:
    with Progress(err, len(memory_ids), "Embedding") as bar:
        return vectors.embed(memory_ids, progress=bar.advance)


def embed(out: OutputWrapper, err: OutputWrapper, *, rebuild: bool, **_) -> None:
    """`memory embed [--rebuild]`: vectors for the memories lacking a sound one (or all)."""
    wanted = vectors.to_embed(rebuild=rebuild)
    done = _embed(err, wanted)
    total = Memory.objects.count()
    out.write(f"Embedded {done} of {total} memories with {embedding.MODEL_VERSION}.")


# ---------------------------------------------------------------------------------------
# project add / list / rename / remove


def add_project(out: OutputWrapper, *, name, **_) -> None:
    with refusals():
        project = project_doors.add(name)
    out.write(f"Added project '{project.name}'.")


def list_projects(out: OutputWrapper, *, format, **_) -> None:
    projects = list(project_reads.projects())
    if format == "json":
        _dump(out, {"projects": [project.to_dict() for project in projects]})
        return
    now = timezone.now()
    if projects:
        _table(
            out,
            ["NAME", "MEMORIES", "CREATED"],
            [[p.name, str(p.memory_count), f"{age(p.created_at, now)}"] for p in projects],
        )
    out.write(f"{len(projects)} {'project' if len(projects) == 1 else 'projects'}.")


def rename_project(out: OutputWrapper, *, name, new_name, **_) -> None:
    with refusals():
        project = project_doors.rename(name, new_name)
    count = project.memories.count()
    out.write(f"Renamed project '{name}' to '{project.name}'; its {_count(count)} moved with it.")


def remove_project(out: OutputWrapper, *, name, **_) -> None:
    with refusals():
        project_doors.remove(name)
    out.write(f"Removed project '{name}'.")


# ---------------------------------------------------------------------------------------
# backup


def backup(out: OutputWrapper, *, destination: str, **_) -> None:
    """A consistent copy of the whole store, taken while the server and writers run."""
    engine_backup = engine.of(connection).backup
    target = Path(destination).expanduser()
    if target.is_dir():
        target = target / f"memadmin-{timezone.now():%Y%m%d-%H%M%S}{engine_backup.SUFFIX}"
    if target.exists():
        raise CommandError(f"{target} exists; name a new file or a directory.")
    if not target.parent.is_dir():
        raise CommandError(f"{target.parent} is not a directory.")
    try:
        report = engine_backup.backup(target)
    except FileExistsError:
        raise CommandError(f"{target} exists; name a new file or a directory.") from None
    except FileNotFoundError as error:
        raise CommandError(f"Cannot back up: {error}.") from None
    except PermissionError as error:
        raise CommandError(f"Cannot write {target}: {error.strerror}.") from None
    if not report.ok:
        raise CommandError(
            f"The copy failed its integrity check and was not kept: {'; '.join(report.problems)}."
        )
    out.write(
        f"Backed up {report.memories} memories ({report.bytes:,} bytes) to {report.path}; "
        f"its integrity check passed. {engine_backup.RESTORE}"
    )
