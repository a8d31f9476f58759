"""The hygiene sections read off the kept tables against what the references, resolved, give:
the orphans (memories.models.Orphan and OrphanTally) against the memories referencing nothing
that no resolved reference names, the dangling targets off the tally (each target's first
citers off reference_citer_order) against the resolved references' section, and the
unverified count off the day tallies against a count of the rows; each with its in-process
time.

Run with MEMADMIN_DATA_DIR set to a bench store and the checkout on PYTHONPATH."""

import os
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()

from django.db.models import Exists, OuterRef  # noqa: E402
from django.utils import timezone  # noqa: E402

from memories.models import Memory, Reference  # noqa: E402
from memories.reads import graph, hygiene, tallies  # noqa: E402
from memories.reads.filters import MemoryFilters  # noqa: E402
from memories.reads.hygiene import INDEX_ORDER, _scope  # noqa: E402
from memories.reads.meaning import id_set  # noqa: E402


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def resolved_orphans(filters, now):
    """The section as the code before migration 0026 read it."""
    scope = _scope(filters)
    found = graph.links(scope, now)
    cited = {link.to for link in found.links if link.to is not None}
    queryset = (
        scope.apply(Memory.objects.select_related("project"), now)
        .filter(~Exists(Reference.objects.filter(memory_id=OuterRef("id"))))
        .exclude(id__in=id_set(sorted(cited)))
    )
    return [m.id for m in queryset.order_by(*INDEX_ORDER)[:50]], queryset.count()


now = timezone.now()
scopes = {
    "store": None,
    "global": MemoryFilters(project=None),
    "webdev": MemoryFilters(project="webdev"),
    "tag infra": MemoryFilters(tag="infra"),
    "expired": MemoryFilters(expired=True),
}
for label, scope in scopes.items():
    start = time.perf_counter()
    kept = hygiene.orphans(scope, now=now)
    kept_ms = ms(start)
    start = time.perf_counter()
    ids, count = resolved_orphans(scope, now)
    print(
        f"orphans {label}: kept {kept_ms} ms, resolved {ms(start)} ms; count {kept.count} "
        f"against {count}; same: {([m.id for m in kept.items], kept.count) == (ids, count)}"
    )
for label in ("store", "webdev"):
    scope = scopes[label]
    start = time.perf_counter()
    tallied = hygiene.dangling(scope, now=now)
    kept_ms = ms(start)
    start = time.perf_counter()
    resolved = hygiene._dangling(graph.links(_scope(scope), now), 50, 0)
    print(
        f"dangling {label}: tally {kept_ms} ms, resolved {ms(start)} ms; count "
        f"{tallied.count}; same: {tallied.to_dict() == resolved.to_dict()}"
    )
for label, scope in {
    "store 90d": MemoryFilters(unverified="90d"),
    "webdev 90d": MemoryFilters(unverified="90d", project="webdev"),
    "global 30d": MemoryFilters(unverified="30d", project=None),
}.items():
    start = time.perf_counter()
    counted = tallies.count(scope, now)
    kept_ms = ms(start)
    start = time.perf_counter()
    rows = scope.apply(Memory.objects.all(), now).count()
    print(
        f"unverified {label}: tallies {kept_ms} ms, rows {ms(start)} ms; {counted} "
        f"against {rows}; same: {counted == rows}"
    )


def every_row_similarity(filters, now):
    """The near-copies as the code before migration 0028 read them: every description of
    the scope numbered (in id order, as the kept read numbers its candidates)."""
    from dataclasses import replace

    from memories.models import GLOBAL_TIER
    from memories.rules.tiers import ANY_TIER

    scope = _scope(filters)
    tier_key = scope.tier_key()
    queryset = replace(scope, project=ANY_TIER).apply(Memory.objects.order_by("id"), now)
    if tier_key is not None:
        queryset = queryset.filter(tier__in={GLOBAL_TIER, tier_key})
    wordings = hygiene._numbered(queryset.values_list("tier", "id", "description"))
    return hygiene.Similarity(wordings.words, wordings.members, hygiene._near_pairs(wordings))


for label, scope in scopes.items():
    start = time.perf_counter()
    kept = hygiene._similarity(scope, now)
    kept_ms = ms(start)
    start = time.perf_counter()
    every = every_row_similarity(scope, now)
    every_ms = ms(start)
    same_groups = hygiene._groups(kept) == hygiene._groups(every)
    same_shadows = (
        hygiene._shadows(kept, 10**9, 0).to_dict() == hygiene._shadows(every, 10**9, 0).to_dict()
    )
    print(
        f"near-copies {label}: keys {kept_ms} ms, every row {every_ms} ms; "
        f"{len(hygiene._groups(kept))} groups, same groups: {same_groups}, "
        f"same shadows: {same_shadows}"
    )
