"""Each memory's vector (memories.MemoryVector), kept by the doors in the write's own
transaction, so a write is searchable by meaning as soon as it lands.

`keep_written(memory, before)` is what the single-memory doors call after the row is written
(write, edit, move, restore, undo), `keep(memories)` what an import calls; a delete takes the
vector with the row. `to_embed` and `embed` are `memory embed [--rebuild]`, `check` and
`mend` are `memory verify [--rebuild]`.
"""

import logging
import multiprocessing
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction

from memories import embedding
from memories.models import Memory, MemoryVector

logger = logging.getLogger(__name__)

BATCH = 1000  # memories embedded and written per statement of a backfill
PARALLEL_FROM = 5000  # memories from which a backfill embeds in a process a core
MAX_WORKERS = 2
TEXT_FIELDS = ("id", "name", "description", "body")


def _fields(memory) -> tuple[str, str, str]:
    return memory.name, memory.description, memory.body


def _text(memory) -> str:
    return embedding.text_of(*_fields(memory))


def _replace(
    memories: dict[int, tuple[str, str, str]], *, new: bool = False, door: bool = False
) -> None:
    """New rows for these memories' vectors (by id: name, description, body), in place of any
    they had (`new`: none), in the caller's transaction. For a `door`, an encoder whose files
    are not sound leaves them without one rather than failing the write."""
    ids = list(memories)
    try:
        vectors = embedding.embed_memories([memories[memory_id] for memory_id in ids])
    except embedding.ModelUnavailable as error:
        if not door:
            raise
        # A write goes on without its vector (the system check says why; `memory verify`
        # counts it missing and `memory embed` makes it once the encoder is back).
        logger.warning("Memories written without a vector: %s", error)
        if not new:
            MemoryVector.objects.filter(memory_id__in=ids).delete()
        return
    if not new:
        MemoryVector.objects.filter(memory_id__in=ids).delete()
    MemoryVector.objects.bulk_create(
        MemoryVector(
            memory_id=memory_id,
            model=embedding.MODEL_VERSION,
            digest=embedding.digest(embedding.text_of(*memories[memory_id])),
            stamp=secrets.randbits(62),
            vector=embedding.to_bytes(vector),
        )
        for memory_id, vector in zip(ids, vectors, strict=True)
    )


def keep_written(memory: Memory, before: Memory | None) -> None:
    """The vector of a memory one door wrote: made anew only when its text changed (a new
    memory, a new name, description or body), so a write of other fields costs no query."""
    if before is not None and _text(before) == _text(memory):
        return
    _replace({memory.id: _fields(memory)}, new=before is None, door=True)


def keep(memories: Iterable[Memory]) -> int:
    """Give each memory a vector of its text as it now is, unless it has a sound one already.

    The memories need their id, name, description and body. Returns how many were embedded.
    """
    wanted = {memory.id: _fields(memory) for memory in memories}
    ids = list(wanted)
    embedded = 0
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        have = dict(
            MemoryVector.objects.filter(
                memory_id__in=chunk, model=embedding.MODEL_VERSION
            ).values_list("memory_id", "digest")
        )
        stale = {
            memory_id: wanted[memory_id]
            for memory_id in chunk
            if have.get(memory_id) != embedding.digest(embedding.text_of(*wanted[memory_id]))
        }
        if stale:
            _replace(stale, door=True)
        embedded += len(stale)
    return embedded


@dataclass
class VectorReport:
    """What `check()` found: memories without a vector, with one of another model version,
    or with one of a text they no longer hold; and vectors of memories gone."""

    memories: int = 0
    missing: list[int] = field(default_factory=list)
    other_version: list[int] = field(default_factory=list)
    out_of_date: list[int] = field(default_factory=list)
    orphans: list[int] = field(default_factory=list)  # vectors of memories no longer stored

    @property
    def ok(self) -> bool:
        return not (self.missing or self.other_version or self.out_of_date or self.orphans)

    @property
    def to_mend(self) -> list[int]:
        return sorted(self.missing + self.other_version + self.out_of_date)

    @property
    def problems(self) -> list[str]:
        found = []
        for ids, what in (
            (self.missing, "without a vector"),
            (self.other_version, f"with a vector of another model than {embedding.MODEL_VERSION}"),
            (self.out_of_date, "with a vector of a text they no longer hold"),
        ):
            if ids:
                found.append(f"{len(ids)} of {self.memories} memories {what}")
        if self.orphans:
            found.append(f"{len(self.orphans)} vectors of memories no longer in the store")
        return found


def check(progress: Callable[[int], None] | None = None) -> VectorReport:
    """Every memory's text held against its vector; `progress(n)` told per batch of memories."""
    stored = {
        memory_id: (model, digest)
        for memory_id, model, digest in MemoryVector.objects.values_list(
            "memory_id", "model", "digest"
        ).iterator(chunk_size=BATCH * 10)
    }
    report = VectorReport()
    present = set()
    batch = 0
    for memory in Memory.objects.only(*TEXT_FIELDS).order_by("id").iterator(chunk_size=BATCH):
        report.memories += 1
        present.add(memory.id)
        found = stored.get(memory.id)
        if found is None:
            report.missing.append(memory.id)
        elif found[0] != embedding.MODEL_VERSION:
            report.other_version.append(memory.id)
        elif found[1] != embedding.digest(_text(memory)):
            report.out_of_date.append(memory.id)
        batch += 1
        if progress is not None and batch == BATCH:
            progress(batch)
            batch = 0
    if progress is not None and batch:
        progress(batch)
    report.orphans = sorted(set(stored) - present)
    return report


def to_embed(*, rebuild: bool = False) -> list[int]:
    """The memories `memory embed` embeds: those lacking a sound vector, or every one."""
    if rebuild:
        return list(Memory.objects.order_by("id").values_list("id", flat=True))
    return check().to_mend


def _batches(memory_ids: list[int]) -> Iterator[tuple[list[int], dict]]:
    """(the ids asked for, what was found of them: id -> text fields), a batch at a time."""
    for start in range(0, len(memory_ids), BATCH):
        chunk = memory_ids[start : start + BATCH]
        found = {
            memory.id: _fields(memory)
            for memory in Memory.objects.filter(id__in=chunk).only(*TEXT_FIELDS)
        }
        yield chunk, found


def _write(found: dict[int, tuple[str, str, str]], computed: np.ndarray) -> None:
    """Rows for vectors computed elsewhere (in place of any the memories had), in one
    transaction."""
    with transaction.atomic():
        MemoryVector.objects.filter(memory_id__in=list(found)).delete()
        MemoryVector.objects.bulk_create(
            MemoryVector(
                memory_id=memory_id,
                model=embedding.MODEL_VERSION,
                digest=embedding.digest(embedding.text_of(*fields)),
                stamp=secrets.randbits(62),
                vector=embedding.to_bytes(vector),
            )
            for (memory_id, fields), vector in zip(found.items(), computed, strict=True)
        )


def embed(memory_ids: list[int], progress: Callable[[int], None] | None = None) -> int:
    """New vectors for these memories, a batch per transaction; `progress(n)` told per batch.
    Returns how many were embedded (a memory deleted meanwhile is passed over). From
    PARALLEL_FROM memories on, the encoder runs in one process a core (it is worth its start,
    about 2 s, there: one onnxruntime thread a process spends the least CPU a memory, so a
    backfill of 100,000 takes about 14 minutes of two cores rather than 28 of one;
    bench/results/2026-12-04-encoder)."""
    workers = min(MAX_WORKERS, os.cpu_count() or 1)
    if len(memory_ids) >= PARALLEL_FROM and workers > 1:
        return _embed_in_processes(memory_ids, progress, workers)
    embedded = 0
    for chunk, found in _batches(memory_ids):
        if found:
            with transaction.atomic():
                _replace(found)
        embedded += len(found)
        if progress is not None:
            progress(len(chunk))
    return embedded


def _embed_in_processes(
    memory_ids: list[int], progress: Callable[[int], None] | None, workers: int
) -> int:
    """`embed` with the vectors computed by `workers` processes, each batch split among them,
    the next batch computing while this one is written."""
    embedded = 0
    context = multiprocessing.get_context("spawn")  # no copy of this process's connections
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = None
        for chunk, found in [*_batches(memory_ids), ([], None)]:
            if found:
                texts = list(found.values())
                step = -(-len(texts) // workers)
                parts = [texts[i : i + step] for i in range(0, len(texts), step)]
                submitted = (
                    chunk,
                    found,
                    [pool.submit(embedding.embed_memories, p) for p in parts],
                )
            else:
                submitted = (chunk, found, []) if found is not None else None
            if pending is not None:
                done_chunk, done_found, futures = pending
                if done_found:
                    _write(done_found, np.concatenate([f.result() for f in futures]))
                embedded += len(done_found)
                if progress is not None:
                    progress(len(done_chunk))
            pending = submitted
    return embedded


def mend(report: VectorReport, progress: Callable[[int], None] | None = None) -> None:
    """What `check()` found put right: orphan vectors dropped, the others embedded again."""
    with transaction.atomic():
        for start in range(0, len(report.orphans), BATCH):
            chunk = report.orphans[start : start + BATCH]
            MemoryVector.objects.filter(memory_id__in=chunk).delete()
    embed(report.to_mend, progress)
