"""The agent view as it stood at a moment, rebuilt from the revisions, against the live view:
at every moment a test wrote, the rebuilt text is the text the live view returned then."""

import datetime as dt
import time

import pytest
from django.utils import timezone

from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.reads.agent_view import agent_view
from memories.reads.past_view import answers_from, project_names_at, view_at
from memories.writes import bulk, doors, history, undo
from projects import writes as project_doors
from projects.models import Project
from tests.conftest import restore


class Recorder:
    """After each write: the moment, and the live text of each session (no project, and each
    project there is then), as the MCP resource or the page would have returned it."""

    def __init__(self):
        self.seen: list[tuple[dt.datetime, int | None, str]] = []

    def __call__(self) -> None:
        moment = timezone.now()
        for project in [None, *Project.objects.all()]:
            text = agent_view(project, moment).text()
            self.seen.append((moment, project.id if project else None, text))

    def check(self) -> int:
        for moment, project_id, text in self.seen:
            rebuilt = view_at(project_id, moment).text()
            assert rebuilt == text, f"at {moment.isoformat()} (project {project_id})"
        return len(self.seen)


@pytest.fixture
def seen(db):
    return Recorder()


def test_every_kind_of_change_is_taken_back(write, seen, small_budget, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 200
    web = project_doors.add("webdev")
    seen()
    write("rule", load="inline", body="Answer in kind.", priority=0, tags=["style"])
    seen()
    write("deploys", description="Where deploys go", priority=3, tags=["ops"])
    write("w-note", project="webdev", load="inline", body="Webdev " * 10, tags=["ops"])
    seen()
    write("hidden", load="search")
    write("w-index", project="webdev", description="Webdev index line", priority=2)
    seen()
    write("deploys", description="Deploys go through the bastion", priority=1)
    seen()
    doors.edit("rule", old_string="kind", new_string="the user's language")
    seen()
    write("rule", priority=4)
    write("w-index", project="webdev", load="inline", body="Now inline " * 8)
    seen()
    doors.move("deploys", to="webdev")  # global to a project: it stays in webdev's band
    seen()
    doors.move("w-note", project="webdev", to=None)  # and back
    seen()
    doors.delete("hidden")
    doors.delete("rule")
    seen()
    undo.restore(TrashedMemory.objects.get(revision__name="rule").id)
    seen()
    project_doors.rename("webdev", "web")
    seen()
    first = Revision.objects.filter(name="deploys").order_by("id").first()
    undo.restore_version(first.id)  # an older version put back
    seen()
    with history.acting(door=history.BULK):
        bulk.set_priority(list(Memory.objects.values_list("id", flat=True)), 7)
    seen()
    undo.undo(ChangeSet.objects.latest("id").id)
    seen()
    restore({"name": "imported", "description": "came by import", "tags": ["ops"]})
    seen()
    project_doors.add("infra")
    write("i-note", project="infra", description="Infra only")
    seen()
    doors.move("i-note", project="infra", to="web")  # between two projects
    seen()
    project_doors.remove("infra")  # a project gone since: its views then are rebuilt too
    seen()
    assert Project.objects.get(id=web.id).name == "web"
    assert seen.check() >= 30


def test_an_expiry_passing_takes_a_memory_out_with_no_revision(write, seen):
    write("stays", description="stays")
    write("fades", description="fades", expires=(timezone.now() + dt.timedelta(seconds=1)))
    seen()
    assert "fades" in seen.seen[-1][2]
    time.sleep(1.2)
    seen()
    assert "fades" not in seen.seen[-1][2] and "1 expired" in seen.seen[-1][2]
    write("later", description="a write after it expired")
    seen()
    assert Revision.objects.filter(name="fades").count() == 1
    seen.check()


def test_tags_of_what_is_left_out_are_as_they_were(settings, seen):
    settings.MEMADMIN_INDEX_MAX_ENTRIES = 3
    restore(*({"name": f"m{n}", "tags": ["infra" if n % 2 else "people"]} for n in range(8)))
    seen()
    assert "most common tags" in seen.seen[-1][2]
    for n in range(0, 8, 2):
        doors.write(f"m{n}", tags=["ci"])
    seen()
    doors.write("m1", load="search")
    seen()
    doors.delete("m3")
    seen()
    seen.check()


def test_projects_are_named_as_they_were(seen):
    project_doors.add("webdev")
    before = timezone.now()
    project_doors.rename("webdev", "web")
    project_doors.add("webdev")  # a new project takes the old name
    assert project_names_at(before) == {Project.objects.get(name="web").id: "webdev"}
    text = view_at(Project.objects.get(name="web").id, before).text()
    assert "Memories of the project webdev and global" in text


def test_a_moment_before_the_history_kept_is_not_answered(write, settings):
    write("old", description="old")
    start = answers_from()
    assert start == Revision.objects.get().at
    write("new", description="new")
    history.prune(days=1, now=timezone.now() + dt.timedelta(days=1, seconds=1))
    assert not Revision.objects.exists()
    assert answers_from() > start  # nothing kept: only the view as it stands


def test_what_a_prune_keeps_still_answers(write, seen):
    write("a", description="first")
    write("b", description="second", tags=["ops"])
    cutoff = timezone.now()
    write("a", description="first, again", load="inline", body="A rule.")
    write("c", description="third")
    seen()
    doors.delete("b")
    doors.move("c", to=project_doors.add("webdev").name)
    seen()
    history.prune(days=1, now=cutoff + dt.timedelta(days=1))
    assert answers_from() > cutoff
    assert seen.check() == 3


def test_a_memory_written_past_the_doors_stood_as_its_first_revision_found_it(write, seen):
    then = timezone.now() - dt.timedelta(days=3)
    Memory.objects.create(
        name="old", description="from before", created_at=then, updated_at=then, verified_at=then
    )
    write("new", description="beside it")
    seen()
    write("old", description="now through a door", priority=1)
    seen()
    assert seen.check() == 2


def test_a_purged_memory_is_counted_not_shown(write):
    write("keep", description="kept")
    write("gone", description="purged since")
    moment = timezone.now()
    assert "gone" in agent_view(None, moment).text()
    doors.delete("gone")
    undo.purge(TrashedMemory.objects.get().id, admin=True)
    past = view_at(None, moment)
    assert past.purged == 1
    assert "keep" in past.text() and "gone" not in past.text()
