"""The demo store's plan as main drew it: facts.differ never vetoes, every member one click."""

import sys

sys.path.insert(0, "bench/meaning")
sys.path.insert(0, "bench")

import generate  # noqa: E402
from recall import demo_store  # noqa: E402

demo_store(generate.ROOT / "var" / "bench" / "demo")

from memories.reads import consolidation  # noqa: E402
from memories.rules import facts  # noqa: E402

facts.differ = lambda a, b: False
consolidation.loses_nothing = lambda s, k: True
plan = consolidation.plan(limit=consolidation.PLAN_MAX)
members = [m.name for c in plan.clusters for m in c.sources]
legacy = sorted(n for n in members if n.startswith("legacy-rule-"))
print(
    f"main's rule on the demo store: {plan.count} clusters, {plan.trashed} trashed by one "
    f"click; legacy rules trashed: {legacy}"
)
for c in plan.clusters:
    print(f"  {c.survivor.name} <- {[m.name for m in c.sources]} cosine {c.similarity:.2f}")
