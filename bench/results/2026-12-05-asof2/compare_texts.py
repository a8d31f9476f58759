"""The rebuilt agent view texts at fixed moments, from the checkout this runs in:

    cd CHECKOUT && MEMADMIN_DATA_DIR=STORE python .../compare_texts.py OUT.json

Run from a checkout of the commit before the states (an export of 1b78ad9) and from this
branch on the same store, then compared (compare-texts.json)."""

import datetime as dt
import json
import os
import sys

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")


def main() -> None:
    import django

    django.setup()
    from memories.reads.past_view import view_at
    from projects.models import Project

    now = dt.datetime(2026, 12, 5, 8, 0, tzinfo=dt.UTC)
    sessions = [None, *Project.objects.filter(name__in=["webdev", "infra"]).values_list("id")]
    out = {}
    for days in (0.01, 1, 7, 30, 200, 365, 600):
        moment = now - dt.timedelta(days=days)
        for session in sessions:
            project_id = session[0] if session else None
            out[f"{days} {project_id}"] = view_at(project_id, moment).text()
    with open(sys.argv[1], "w") as handle:
        json.dump(out, handle)
    print(len(out))


if __name__ == "__main__":
    main()
