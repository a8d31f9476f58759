"""The demo store's plan as main drew it: facts.differ never vetoes, every member one click."""
import sys
sys.path.insert(0, "bench/meaning"); sys.path.insert(0, "bench")
import generate
from recall import demo_store
demo_store(generate.ROOT / "var" / "bench" / "demo")
from memories.rules import facts
from memories.reads import consolidation
facts.differ = lambda a, b: False
consolidation.loses_nothing = lambda s, k: True
plan = consolidation.plan(limit=consolidation.PLAN_MAX)
members = [m.name for c in plan.clusters for m in c.sources]
print(f"main's rule on the demo store: {plan.count} clusters, {plan.trashed} trashed by one click; legacy rules trashed: {sorted(n for n in members if n.startswith('legacy-rule-'))}")
for c in plan.clusters:
    print(f"  {c.survivor.name} <- {[m.name for m in c.sources]} cosine {c.similarity:.2f}")
