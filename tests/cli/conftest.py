import io
import os
import stat
from pathlib import Path

import pytest
from django.core.management import call_command

from memories.writes import doors
from projects import writes as project_doors

# Bodies an export must carry byte for byte, each with the reason it is awkward.
AWKWARD_BODIES = {
    "zwj": "Family: \U0001f468\u200d\U0001f469\u200d\U0001f467, coder: \U0001f469\u200d\U0001f4bb",
    "crlf": "line one\r\nline two\r\n\r\nlast line without a break",
    "blank-edges": "\n\n   indented after two blank lines\n\n\n",
    "cjk": "毎週水曜日の定例会議。中文文档使用全角标点。สวัสดีครับ",
    "frontmatter-lookalike": "---\ndescription: not the real one\npriority: 0\n---\nbody after\n",
    "empty": "",
    "lone-cr-and-tabs": "a\rb\tc \t\n",
    "bom-and-nbsp": "\ufeffstarts with a BOM,\u00a0no-break\u00a0spaces ",
    "only-dashes": "---\n---\n",
}
AWKWARD_DESCRIPTIONS = {
    "zwj": "key: value # not a comment",
    "crlf": "2024-01-01",
    "blank-edges": "- looks like a list",
    "cjk": "東京オフィスの定例会議メモ",
    "frontmatter-lookalike": "'quoted' and \"double\"",
    "empty": "yes",
    "lone-cr-and-tabs": "null",
    "bom-and-nbsp": "@at *star &anchor !tag %percent `tick",
    "only-dashes": "---",
}


@pytest.fixture
def run(db):
    """call_command capturing what it prints: run("memory", "list") -> (stdout, stderr)."""

    def _run(*args, **options):
        out, err = io.StringIO(), io.StringIO()
        call_command(*args, stdout=out, stderr=err, **options)
        return out.getvalue(), err.getvalue()

    return _run


def add_awkward() -> None:
    """A memory per awkward body, with awkward descriptions, tags and every optional field."""
    project_doors.add("odd")
    for index, (name, body) in enumerate(AWKWARD_BODIES.items()):
        doors.write(
            f"awkward-{name}",
            project="odd" if index % 2 else None,
            description=AWKWARD_DESCRIPTIONS[name],
            body=body,
            tags=["yes", "1.10", "null", "#hash", "ünï"][: index % 5 + 1],
            references=["deploy-host", "https://example.com/a?b=c#d", "key: value"][: index % 3],
            priority=[0, 100, 5, 7][index % 4],
            load=["inline", "index", "search"][index % 3],
            source="ops, in chat: 'quoted'" if index % 2 else None,
            expires="2099-12-31T23:59:59.999999Z" if index % 3 == 0 else None,
        )


@pytest.fixture
def awkward(db):
    add_awkward()
    return AWKWARD_BODIES


def tree(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every file and folder under root (root included): its mode and, for files, its bytes."""
    found = {".": (stat.S_IMODE(root.stat().st_mode), None)}
    for folder, folders, files in os.walk(root):
        for name in folders:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = (stat.S_IMODE(path.stat().st_mode), None)
        for name in files:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = (
                stat.S_IMODE(path.stat().st_mode),
                path.read_bytes(),
            )
    return found


def store_state() -> tuple[list, list]:
    """Every stored value of every memory and project: equal before and after = nothing landed."""
    from memories.models import Memory
    from projects.models import Project

    fields = [f.attname for f in Memory._meta.concrete_fields if f.attname != "tier"]
    return (
        list(Memory.objects.order_by("id").values_list(*fields)),
        list(Project.objects.order_by("id").values_list("id", "name", "created_at")),
    )


def write_snapshot(root: Path, files: dict[str, str | bytes], *, version=1) -> Path:
    """A snapshot directory by hand: export.toml (unless version is None) and the files."""
    root.mkdir(parents=True, exist_ok=True)
    if version is not None:
        (root / "export.toml").write_text(f"format_version = {version}\n")
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def memory_file(description="a note", *, created="2024-01-02T03:04:05Z", body="", **fields) -> str:
    lines = ["---", f"description: {description}", f"created: {created}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join(lines) + "\n---\n" + body
