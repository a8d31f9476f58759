"""Each memory's vector, kept by every door in the write's own transaction."""

import numpy as np
import pytest
from django.db import connection

from memories import embedding
from memories.models import ChangeSet, Memory, MemoryVector, Revision, TrashedMemory
from memories.rules.errors import InlineBudgetExceeded
from memories.writes import bulk, doors, imports, undo, vectors


def _vector(name: str) -> MemoryVector | None:
    return MemoryVector.objects.filter(memory__name=name).first()


def _embedded(name: str, description: str, body: str = "") -> bytes:
    vector = embedding.embed_memories([(name, description, body)])[0]
    return embedding.to_bytes(vector)


def test_a_new_memory_has_the_vector_of_its_name_description_and_body(write):
    write("deploy-host", description="Deploys go to host-7", body="via the bastion")
    stored = _vector("deploy-host")
    assert stored.model == embedding.MODEL_VERSION
    assert bytes(stored.vector) == _embedded(
        "deploy-host", "Deploys go to host-7", "via the bastion"
    )
    assert stored.digest == embedding.digest(
        embedding.text_of("deploy-host", "Deploys go to host-7", "via the bastion")
    )


def test_a_change_of_text_gives_a_new_row_and_other_fields_keep_it(write, project):
    write("note", description="The cache is flushed nightly")
    first = _vector("note")
    doors.write("note", priority=1, tags=["ops"], load="search")
    doors.move("note", to="webdev")
    assert _vector("note").id == first.id, "no text changed: the same vector"
    doors.write("note", body="Also on deploys.")
    changed = _vector("note")
    assert changed.id > first.id and changed.stamp != first.stamp
    assert bytes(changed.vector) == _embedded(
        "note", "The cache is flushed nightly", "Also on deploys."
    )
    assert MemoryVector.objects.count() == 1


def test_an_edit_re_embeds_the_body(write):
    write("rule", description="Release days", body="Deploy on Tuesdays.")
    doors.edit("rule", old_string="Tuesdays", new_string="Mondays")
    assert bytes(_vector("rule").vector) == _embedded("rule", "Release days", "Deploy on Mondays.")


def test_delete_takes_the_vector_and_restore_brings_it_back(write):
    write("gone", description="Subtitles are SRT", body="two lines a card")
    doors.delete("gone")
    assert not MemoryVector.objects.exists()
    undo.restore(TrashedMemory.objects.get().id)
    assert bytes(_vector("gone").vector) == _embedded(
        "gone", "Subtitles are SRT", "two lines a card"
    )


def test_a_refused_write_leaves_no_vector(write, small_budget):
    with pytest.raises(InlineBudgetExceeded):
        write("big", load="inline", body="x" * 500)
    assert not MemoryVector.objects.exists()


def test_an_import_embeds_what_it_writes_and_its_undo_puts_the_old_text_back(write):
    write("note", description="mine", body="old words")
    created = Memory.objects.get(name="note").created_at
    entries = [
        imports.ImportEntry(
            name="note", project=None, description="theirs", body="new words", created_at=created
        ),
        imports.ImportEntry(
            name="fresh", project=None, description="brought in", created_at=created
        ),
    ]
    imports.import_memories(entries, force=True)
    assert bytes(_vector("note").vector) == _embedded("note", "theirs", "new words")
    assert bytes(_vector("fresh").vector) == _embedded("fresh", "brought in")
    undo.undo(ChangeSet.objects.get().id)
    assert bytes(_vector("note").vector) == _embedded("note", "mine", "old words")
    assert _vector("fresh") is None


def test_restoring_a_version_re_embeds_it(write):
    write("tz", description="Alice works in Berlin")
    write("tz", description="Alice works in Tokyo")
    first = Revision.objects.filter(name="tz").order_by("id").first()
    undo.restore_version(first.id)
    assert bytes(_vector("tz").vector) == _embedded("tz", "Alice works in Berlin")


def test_bulk_actions_keep_each_vector(write, project):
    ids = [write(f"m{i}", description=f"note {i}").memory.id for i in range(3)]
    before = set(MemoryVector.objects.values_list("id", flat=True))
    bulk.set_priority(ids, 2)
    bulk.move(ids, "webdev")
    assert set(MemoryVector.objects.values_list("id", flat=True)) == before
    bulk.delete(ids[:2])
    assert list(MemoryVector.objects.values_list("memory_id", flat=True)) == [ids[2]]


def test_check_reports_and_embed_mends_missing_other_version_and_stale_vectors(write):
    for name in ("a", "b", "c", "d"):
        write(name, description=f"about {name}")
    ids = dict(Memory.objects.values_list("name", "id"))
    MemoryVector.objects.filter(memory_id=ids["a"]).delete()
    MemoryVector.objects.filter(memory_id=ids["b"]).update(model="wordllama-0.0/old")
    Memory.objects.filter(id=ids["c"]).update(description="changed behind the doors")
    report = vectors.check()
    assert (report.missing, report.other_version, report.out_of_date) == (
        [ids["a"]],
        [ids["b"]],
        [ids["c"]],
    )
    assert not report.ok and len(report.problems) == 3
    told = []
    assert vectors.embed(vectors.to_embed(), progress=told.append) == 3
    assert vectors.check().ok and sum(told) == 3
    assert bytes(_vector("c").vector) == _embedded("c", "changed behind the doors")
    assert len(vectors.to_embed(rebuild=True)) == 4


def test_vectors_decode_to_unit_rows(write):
    write("x", description="The render farm caps at 40 nodes")
    (row,) = embedding.from_bytes([bytes(_vector("x").vector)])
    assert np.isclose(np.linalg.norm(row), 1.0)


def test_a_memory_removed_behind_the_doors_leaves_an_orphan_that_mend_drops(write):
    write("kept", description="stays")
    gone = write("gone", description="removed by hand").memory
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM memories_memory WHERE id = %s", [gone.id])
    report = vectors.check()
    assert report.orphans == [gone.id]
    assert report.problems == ["1 vectors of memories no longer in the store"]
    vectors.mend(report)
    assert vectors.check().ok
    assert list(MemoryVector.objects.values_list("memory__name", flat=True)) == ["kept"]


@pytest.fixture
def encoder_gone(monkeypatch, tmp_path):
    """The encoder's files missing, as after a broken install: a fresh process's first load."""
    monkeypatch.setattr(embedding, "_loaded", None)
    monkeypatch.setenv("MEMADMIN_ENCODER_DIR", str(tmp_path))


def test_without_the_encoder_a_write_lands_without_a_vector_and_words_still_find_it(
    write, encoder_gone
):
    from memories.reads.filters import MemoryFilters
    from memories.reads.search import search

    write("deploy-host", description="Deploys go to host-7", body="via the bastion")
    assert Memory.objects.filter(name="deploy-host").exists()
    assert not MemoryVector.objects.exists()
    assert vectors.check().missing == [Memory.objects.get().id]
    for mode in ("words", "hybrid"):
        hits = search(["bastion"], MemoryFilters(), mode=mode).hits
        assert [hit.memory.name for hit in hits] == ["deploy-host"], mode
    assert search(["bastion"], MemoryFilters(), mode="meaning").hits == []
    with pytest.raises(embedding.ModelUnavailable):
        vectors.embed([Memory.objects.get().id])  # a backfill says so rather than skip


def test_the_system_check_names_missing_encoder_files_in_one_sentence(encoder_gone):
    from django.core import checks

    found = [m for m in checks.run_checks() if m.id == "memories.W001"]
    assert len(found) == 1
    assert found[0].msg.endswith("model.safetensors is missing.")
    assert found[0].msg.count(". ") == 0, "one sentence"


def test_the_system_check_is_quiet_when_the_encoder_is_sound(db):
    from django.core import checks

    assert not [m for m in checks.run_checks() if m.id == "memories.W001"]


def test_a_large_backfill_embeds_in_processes_as_one_process_would(write, monkeypatch):
    for n in range(7):
        write(f"note-{n}", description=f"Note {n} about deploys", body="x " * (n * 40))
    ids = list(Memory.objects.order_by("id").values_list("id", flat=True))
    MemoryVector.objects.all().delete()
    assert vectors.embed(ids) == 7
    alone = dict(MemoryVector.objects.values_list("memory_id", "vector"))
    MemoryVector.objects.all().delete()
    monkeypatch.setattr(vectors, "PARALLEL_FROM", 1)
    monkeypatch.setattr(vectors, "BATCH", 3)  # three batches, each split between two
    monkeypatch.setattr(vectors.os, "cpu_count", lambda: 2)
    told = []
    assert vectors.embed([*ids, 999_999], progress=told.append) == 7
    assert sum(told) == 8
    rows = dict(MemoryVector.objects.values_list("memory_id", "vector"))
    assert sorted(rows) == ids
    a = embedding.from_bytes([bytes(alone[i]) for i in ids])
    b = embedding.from_bytes([bytes(rows[i]) for i in ids])
    assert (a * b).sum(axis=1).min() > 0.9999
    assert vectors.check().ok
