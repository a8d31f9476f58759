"""The demo store's consolidation page as an operator sees it, and what each review pairs.

    cp -r var/bench/demo /tmp/demo-copy       # the demo store duplicate_pairs.py made
    .venv/bin/python bench/results/2026-12-05-duplicates/demo_check.py /tmp/demo-copy

Signs an operator in (a user made in the copy), reads /hygiene/consolidation/ for every tier
and for the legacy project, and prints the plan's summary, whether the whole plan's button is
there, whether any legacy rule is in the plan, and the descriptions of each review beside its
survivor with whether similarity.reworded called them one fact said in another order.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main(data_dir: Path) -> None:
    import generate

    generate.setup_django(data_dir)
    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from memadmin.accounts import roles
    from memories.reads import consolidation
    from memories.rules import similarity

    settings.ALLOWED_HOSTS = ["*"]
    user, _ = User.objects.get_or_create(username="duplicates-check")
    user.groups.add(Group.objects.get(name=roles.OPERATOR))
    client = Client()
    client.force_login(user)
    for query in ("", "?project=legacy"):
        response = client.get("/hygiene/consolidation/" + query)
        html = response.content.decode()
        plan = html[html.index('<div id="plan">') :]
        summary = re.search(r'<p class="summary">.*?</p>', plan, re.S).group(0)
        print(
            f"{query or '(every tier)'}: {response.status_code} {re.sub(r'<[^>]+>', '', summary)}"
        )
        print(
            f"  'Apply the whole plan' shown: {'Apply the whole plan' in plan}; "
            f"a legacy rule in the plan: {'legacy-rule-' in plan}"
        )
    for cluster in consolidation.plan(limit=consolidation.PLAN_MAX).clusters:
        for review in cluster.reviews:
            a, b = cluster.survivor.description, review.memory.description
            print(
                f"review at {cluster.similarity:.3f}, reworded {similarity.reworded(a, b)}:\n"
                f"  {cluster.survivor.name}: {a}\n  {review.memory.name}: {b}"
            )


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
