"""The rebuilt agent view text at fixed moments, from whichever checkout this runs in."""
import datetime as dt, json, os, sys, hashlib
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
import django
django.setup()
from memories.reads.past_view import view_at, project_names_at, project_at
from projects.models import Project
now = dt.datetime(2026, 12, 5, 8, 0, tzinfo=dt.UTC)
out = {}
webdev = Project.objects.get(name="webdev").id
for days in (0.01, 1, 7, 30, 200, 365, 600):
    moment = now - dt.timedelta(days=days)
    for pid in (None, webdev, Project.objects.get(name="infra").id if Project.objects.filter(name="infra").exists() else None):
        past = view_at(pid, moment)
        out[f"{days} {pid}"] = past.text()
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
