"""The wording keys (memories.models.Wording): each memory's row kept by the engine's
triggers, its key by the doors; the count of each key (WordingTally) by the triggers on the
rows. Equal at each step to the keys of the descriptions; a key left unknown past the doors
still counts on the hygiene page; checked by `memory verify`, mended by `--rebuild`."""

from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memories import engine
from memories.models import ChangeSet, Memory, TrashedMemory, Wording, WordingTally
from memories.reads import hygiene
from memories.rules import similarity
from memories.writes import bulk, doors, imports, undo, wordings


def _in_step() -> None:
    """Every memory's key its description's, each key's count a count of them, and both
    checks clean."""
    expected = {
        memory_id: similarity.wording(description)
        for memory_id, description in Memory.objects.values_list("id", "description")
    }
    assert dict(Wording.objects.values_list("memory_id", "wording")) == expected
    assert dict(WordingTally.objects.values_list("wording", "memories")) == dict(
        Counter(expected.values())
    )
    assert engine.of(connection).index.check().ok
    assert wordings.check().ok


def test_the_key_is_the_descriptions_words():
    assert similarity.wording("Same words here.") == similarity.wording("same  WORDS here")
    assert similarity.wording("same words here") != similarity.wording("same words there")
    assert similarity.wording("...") == "" and len(similarity.wording("a b")) == 32


def test_the_keys_follow_each_write(write, project):
    write("a", description="Nightly backups at 02:00")
    write("b", description="nightly BACKUPS at 02:00!")
    _in_step()
    assert WordingTally.objects.get().memories == 2
    write("b", description="The pager rotates on Mondays")
    _in_step()
    write("b", priority=2)  # not its description: the key stays
    _in_step()
    doors.move("b", to="webdev")
    doors.delete("a")
    _in_step()
    undo.restore(TrashedMemory.objects.get().id)
    _in_step()
    bulk.move([Memory.objects.get(name="a").id], "webdev")
    _in_step()


def test_an_import_and_its_undo_keep_the_keys(write):
    write("note", description="mine")
    created = Memory.objects.get(name="note").created_at
    entries = [
        imports.ImportEntry(name="note", project=None, description="theirs", created_at=created),
        imports.ImportEntry(name="fresh", project=None, description="Theirs.", created_at=created),
    ]
    imports.import_memories(entries, force=True)
    _in_step()
    assert WordingTally.objects.get(memories=2).wording == similarity.wording("theirs")
    undo.undo(ChangeSet.objects.latest("id").id)
    _in_step()


def test_a_description_changed_past_the_doors_leaves_its_key_unknown_and_still_counted(write):
    write("a", description="Nightly backups at 02:00")
    write("b", description="The pager rotates on Mondays")
    assert hygiene.duplicate_groups().count == 0
    Memory.objects.filter(name="b").update(description="NIGHTLY backups at 02:00")
    assert Wording.objects.get(memory__name="b").wording is None
    (group,) = hygiene.duplicate_groups().items
    assert sorted(m.name for m in group.memories) == ["a", "b"]
    assert not wordings.check().ok
    call_command("memory", "verify", "--rebuild")
    _in_step()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda: Wording.objects.update(wording="0" * 32),
        lambda: Wording.objects.all().delete(),
        lambda: WordingTally.objects.update(memories=7),
        lambda: WordingTally.objects.all().delete(),
    ],
    ids=["a wrong key", "the rows gone", "a key's count", "the tally gone"],
)
def test_verify_finds_the_keys_out_of_step_and_rebuild_mends_them(write, spoil):
    write("a", description="Nightly backups at 02:00")
    write("b", description="nightly backups at 02:00")
    spoil()
    with pytest.raises(CommandError, match="out of step"):
        call_command("memory", "verify")
    call_command("memory", "verify", "--rebuild")
    _in_step()


@pytest.mark.django_db(transaction=True)
def test_the_migration_works_out_the_keys_of_the_memories_there():
    from django.db.migrations.executor import MigrationExecutor

    doors.write("a", description="Nightly backups at 02:00")
    doors.write("b", description="nightly backups at 02:00")
    executor = MigrationExecutor(connection)
    executor.migrate([("memories", "0027_reference_citer_order")])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    _in_step()
