"""Nearest neighbours by meaning over the vectors a process holds, kept up to date."""

import numpy as np
import pytest
from django.db import transaction

from memories import embedding
from memories.models import GLOBAL_TIER, Memory, MemoryVector
from memories.reads import meaning
from memories.reads.filters import MemoryFilters
from memories.writes import doors


def _ids(found):
    return [memory.name for memory, _ in found]


def test_similar_to_ranks_by_meaning_and_leaves_itself_out(write):
    cache = write("cache-flush", description="The cache is invalidated every night").memory
    write("cache-when", description="When is the cache flushed")
    write("subtitles", description="Subtitles are delivered as SRT and TTML")
    found = meaning.similar_to(cache, limit=5)
    assert _ids(found)[0] == "cache-when"
    assert "cache-flush" not in _ids(found)
    cosines = [cosine for _, cosine in found]
    assert cosines == sorted(cosines, reverse=True)
    assert _ids(meaning.similar_to(cache, threshold=0.4)) == ["cache-when"]


def test_similar_to_is_narrowed_by_the_filters(write, project):
    cache = write("cache-flush", description="The cache is invalidated every night").memory
    write("cache-when", description="When is the cache flushed")
    write("cache-web", description="When is the web cache flushed", project="webdev")
    found = meaning.similar_to(cache, filters=MemoryFilters(project="webdev"))
    assert _ids(found) == ["cache-web"]


def test_the_held_vectors_follow_writes_deletes_and_rows_written_elsewhere(write):
    a = write("a", description="Deploys go to host-7 through the bastion").memory
    vector = meaning.query_vector("production deploys through the bastion host")
    assert [
        n.memory_id
        for n in meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False))[0]
    ] == [a.id]
    b = write("b", description="Releases to production pass the bastion host").memory
    assert {
        n.memory_id
        for n in meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False))[0]
    } == {a.id, b.id}
    doors.delete("b")
    assert [
        n.memory_id
        for n in meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False))[0]
    ] == [a.id]
    # Another process rewrote a's vector: the new row is read.
    row = MemoryVector.objects.get(memory_id=a.id)
    unrelated = embedding.embed(["Subtitles are delivered as SRT and TTML"])[0]
    MemoryVector.objects.filter(id=row.id).delete()
    MemoryVector.objects.create(
        memory_id=a.id,
        model=row.model,
        digest=row.digest,
        stamp=7,
        vector=embedding.to_bytes(unrelated),
    )
    assert meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False)) == ([], True)


def test_rows_rolled_back_and_their_ids_reused_are_read_again(write):
    write("a", description="Deploys go to host-7 through the bastion")
    vector = meaning.query_vector("production deploys through the bastion host")
    with transaction.atomic():
        sid = transaction.savepoint()
        write("b", description="Releases to production pass the bastion host")
        assert len(meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False))[0]) == 2
        transaction.savepoint_rollback(sid)
    c = write("c", description="Subtitles are delivered as SRT and TTML").memory
    found = meaning.nearest(meaning.ranking(vector, floor=0.3, less_hubness=False))[0]
    assert [n.memory_id for n in found] == [MemoryVector.objects.get(memory__name="a").memory_id]
    assert c.id not in [n.memory_id for n in found]


def test_vectors_of_another_model_are_left_out(write):
    a = write("a", description="Deploys go to host-7 through the bastion").memory
    MemoryVector.objects.filter(memory_id=a.id).update(model="wordllama-0.0/old", stamp=1)
    # An update in place is not how the doors write; a new row is: write one of another model.
    row = MemoryVector.objects.get(memory_id=a.id)
    MemoryVector.objects.filter(id=row.id).delete()
    MemoryVector.objects.create(
        memory_id=a.id, model="wordllama-0.0/old", digest="", stamp=2, vector=row.vector
    )
    assert meaning.vector_of(a) is None
    assert meaning.nearest(
        meaning.ranking(meaning.query_vector("deploys bastion"), floor=-1.0, less_hubness=False)
    ) == ([], True)


def test_near_duplicate_pairs_of_a_tier(write, project):
    a = write("alice-timezone", description="Alice works in the Europe/Berlin time zone").memory
    b = write("alice-tz", description="Alice works in the Europe/Berlin timezone").memory
    write("bob-food", description="Bob is vegetarian")
    write("alice-web", description="Alice works in the Europe/Berlin time zone", project="webdev")
    pairs = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert [(x, y) for x, y, _ in pairs] == [(a.id, b.id)]
    assert pairs[0][2] >= meaning.NEAR_DUPLICATE_COSINE
    assert meaning.near_duplicate_pairs(project.id) == []
    assert meaning.near_duplicate_pairs(GLOBAL_TIER, threshold=1.01) == []


def test_near_duplicate_pairs_compare_across_blocks(write, monkeypatch):
    monkeypatch.setattr(meaning, "PAIR_BLOCK", 2)
    names = ["x1", "y1", "x2", "y2", "x3"]
    for name in names:
        text = "Deploys go to host-7" if name.startswith("x") else "Subtitles are SRT files"
        write(name, description=text)
    pairs = meaning.near_duplicate_pairs(GLOBAL_TIER, threshold=0.7)
    found = {tuple(sorted((x, y))) for x, y, _ in pairs}
    ids = dict(Memory.objects.values_list("name", "id"))
    expected = {
        tuple(sorted((ids[p], ids[q])))
        for p, q in [("x1", "x2"), ("x1", "x3"), ("x2", "x3"), ("y1", "y2")]
    }
    assert found == expected
    assert all(np.isfinite(cosine) for _, _, cosine in pairs)


def test_the_write_doors_note_names_the_closest_in_the_band(write, project):
    write("alice-web", description="Alice works in the Europe/Berlin time zone", project="webdev")
    result = write("alice-tz", description="Alice works in the Europe/Berlin timezone")
    assert result.notes == [], "a project's memory is not in the global band"
    result = write(
        "alice-tz2", description="Alice works in the Europe/Berlin timezone", project="webdev"
    )
    assert any(
        "'alice-web' already says" in note or "'alice-tz' already says" in note
        for note in result.notes
    )


FACTS = [
    "The cache is invalidated every night",
    "Subtitles are delivered as SRT and TTML",
    "Alice works in the Europe/Berlin time zone",
    "Bob is vegetarian",
    "Production deploys go to host-7",
    "The web app uses pnpm, never npm or yarn",
    "Invoices are sent on the first Monday of the month",
    "The staging database is refreshed from production weekly",
    "Carmen prefers Spanish in chat",
    "Incident reviews are blameless and written within two days",
]


def test_the_pairs_follow_the_writes_without_drawing_them_all_again(write, monkeypatch):
    for n, fact in enumerate(FACTS):
        write(f"fact-{n}", description=fact)
    backups = write("backups", description="Nightly database backups run at 02:00 UTC").memory
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == []
    draw = meaning._drawn

    def drawn_again(*args):
        raise AssertionError("every pair drawn again for one write")

    monkeypatch.setattr(meaning, "_drawn", drawn_again)
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == [], "an unchanged store: nothing drawn"
    copy = write("backups-copy", description="Database backups run nightly at 02:00").memory
    kept = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert [(a, b) for a, b, _ in kept] == [(backups.id, copy.id)]
    monkeypatch.setattr(meaning, "_drawn", draw)
    monkeypatch.setattr(meaning, "_held", meaning._Vectors())  # a new process draws them all
    drawn = meaning.near_duplicate_pairs(GLOBAL_TIER)
    assert [(a, b) for a, b, _ in drawn] == [(backups.id, copy.id)]
    assert np.isclose(kept[0][2], drawn[0][2], atol=1e-3)
    monkeypatch.setattr(meaning, "_drawn", drawn_again)
    write("backups-copy", description="Subtitles are burnt into the video")  # edited away
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == []
    write("backups-again", description="Database backups run nightly at 02:00")
    doors.delete("backups")
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == []


def test_pairs_are_kept_from_the_near_duplicate_cosine_up(write):
    write("backups", description="Nightly database backups run at 02:00 UTC")
    with pytest.raises(ValueError):
        meaning.near_duplicate_pairs(GLOBAL_TIER, threshold=meaning.NEAR_DUPLICATE_COSINE - 0.1)


def test_an_edit_of_the_last_memory_written_reads_its_vector_alone(write, monkeypatch):
    for n, fact in enumerate(FACTS):
        write(f"fact-{n}", description=fact)
    assert meaning.held_count() == len(FACTS)
    decoded = []
    codes_of = embedding.codes_of
    monkeypatch.setattr(
        embedding, "codes_of", lambda blobs: decoded.append(len(blobs)) or codes_of(blobs)
    )
    write(f"fact-{len(FACTS) - 1}", description="Subtitles are burnt into the video")
    doors.delete("fact-0")
    assert meaning.held_count() == len(FACTS) - 1
    assert decoded == [1], "one vector read, not every one again"
    (close,) = meaning.similar_to(Memory.objects.get(name="fact-1"), limit=1, threshold=0.5)
    assert close[0].name == f"fact-{len(FACTS) - 1}"


def test_the_pairs_are_drawn_with_the_searches_lock_free(write, monkeypatch):
    for n, fact in enumerate(FACTS[:4]):
        write(f"fact-{n}", description=fact)
    drawn = meaning._drawn

    def drawing(*args):
        assert not meaning._held.lock.locked(), "a search would wait for the whole drawing"
        assert meaning._held.drawing.locked(), "one drawing at a time"
        return drawn(*args)

    monkeypatch.setattr(meaning, "_drawn", drawing)
    monkeypatch.setattr(meaning, "_held", meaning._Vectors())
    assert meaning.near_duplicate_pairs(GLOBAL_TIER) == []


@pytest.mark.parametrize("n", [1, 5, 37, 200, 999, 1000, 1500])
def test_the_first_n_ranked_are_those_a_sort_of_them_all_puts_first(n):
    """A search orders only what it reads: the same first n, ties included, as a stable sort
    of every cosine above the floor."""
    generator = np.random.default_rng(n)
    key = np.round(generator.random(1000), 2)  # many equal keys, as twin memories give
    assert meaning._stable_first(key, n).tolist() == np.argsort(key, kind="stable")[:n].tolist()


def test_the_table_is_read_again_only_once_a_change_is_committed(transactional_db):
    """While nothing is committed the held vectors are not looked up again; a memory written
    by another connection (a thread's) is found by the next search all the same."""
    import threading

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    doors.write("deploy-host", description="Production deploys go to host-7")
    meaning.held_count()
    with CaptureQueriesContext(connection) as asked:
        meaning.held_count()
    assert not any("memoryvector" in query["sql"] for query in asked.captured_queries)

    def elsewhere():
        doors.write("subtitles", description="Subtitles are delivered as SRT and TTML")
        connection.close()

    writer = threading.Thread(target=elsewhere)
    writer.start()
    writer.join()
    assert meaning.held_count() == 2
