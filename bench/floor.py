"""The Django floor: a minimal Django app answering the first 50 memories of the same store as
JSON, the same columns `/v1/memories` shows, with no middleware, token or form. Served by
gunicorn beside the app (bench/run.py), it is what `/v1/memories`' throughput is held against.

`/memories/<name>/?project=<name>` is the memory detail page's floor: what the page reads of
the memory (every field it shows, the memories its references name, those citing it, in its
band), read by plain statements and shown through one small escaping template, with no
session, role, tabs, Markdown or edit form.

    MEMADMIN_FLOOR_DB=var/bench/100000-1/memadmin.sqlite3 gunicorn --chdir bench floor
    MEMADMIN_DATABASE_URL=postgres://u@host:port/db gunicorn --chdir bench floor
"""

import json
import os
from urllib.parse import unquote, urlsplit

import django
from django.conf import settings


def _database() -> dict:
    """The store's database: MEMADMIN_DATABASE_URL's PostgreSQL, else the SQLite file."""
    url = urlsplit(os.environ.get("MEMADMIN_DATABASE_URL", ""))
    if not url.scheme:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["MEMADMIN_FLOOR_DB"]}
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": url.path.lstrip("/"),
        "USER": unquote(url.username or ""),
        "PASSWORD": unquote(url.password or ""),
        "HOST": url.hostname or "",
        "PORT": str(url.port or ""),
    }


settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    SECRET_KEY="floor",
    DATABASES={"default": {**_database(), "CONN_MAX_AGE": None}},
    USE_TZ=True,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
)
django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import Http404, HttpResponse, JsonResponse  # noqa: E402
from django.template import Context, Engine  # noqa: E402
from django.urls import path  # noqa: E402

COLUMNS = (
    "name, project_id, description, priority, load, tags, refs, source, created_at, "
    "updated_at, verified_at, expires_at, read_count"
)
NAMES = COLUMNS.split(", ")


def memories(request):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {COLUMNS} FROM memories_memory "
            "ORDER BY priority, created_at DESC, id DESC LIMIT 50"
        )
        rows = [dict(zip(NAMES, row, strict=True)) for row in cursor.fetchall()]
    return JsonResponse({"memories": rows, "count": len(rows)})


DETAIL = Engine().from_string(
    "<!doctype html><title>{{ m.name }}</title><h1>{{ m.name }}</h1><p>{{ m.description }}</p>"
    "<dl><dt>Tier</dt><dd>{{ m.project }}</dd><dt>Priority</dt><dd>{{ m.priority }}</dd>"
    "<dt>Load</dt><dd>{{ m.load }}</dd><dt>Tags</dt><dd>{{ m.tags }}</dd>"
    "<dt>Source</dt><dd>{{ m.source }}</dd><dt>Recorded</dt><dd>{{ m.created_at }}</dd>"
    "<dt>Updated</dt><dd>{{ m.updated_at }}</dd><dt>Verified</dt><dd>{{ m.verified_at }}</dd>"
    "<dt>Expires</dt><dd>{{ m.expires_at }}</dd><dt>Read</dt><dd>{{ m.read_count }}</dd>"
    "</dl><pre>{{ m.body }}</pre><h2>References</h2><ul>{% for target in m.refs %}"
    "<li>{{ target }}{% for name, description, project in cited %}{% if name == target %}: "
    "{{ description }} ({{ project }}){% endif %}{% endfor %}</li>{% endfor %}</ul>"
    "<h2>Cited by</h2><ul>{% for name, description, project in citers %}"
    "<li>{{ name }} ({{ project }}): {{ description }}</li>{% endfor %}</ul>"
)
# What the page reads of the memory itself: every field it shows.
DETAIL_COLUMNS = [
    "id",
    "name",
    "tier",
    "description",
    "body",
    "priority",
    "load",
    "tags",
    "refs",
    "source",
    "created_at",
    "updated_at",
    "verified_at",
    "expires_at",
    "read_count",
]
# The memories its references name and those citing it, as the page reads them: in the
# memory's band, with their tier's name and their description.
CITED = (
    "SELECT m.name, m.description, p.name FROM memories_memory m "
    "LEFT JOIN projects_project p ON p.id = m.project_id WHERE m.name IN ({names})"
)
CITERS = (
    "SELECT m.name, m.description, p.name FROM memories_memory m "
    "LEFT JOIN projects_project p ON p.id = m.project_id "
    "WHERE m.id IN (SELECT memory_id FROM memories_reference WHERE target = %s) "
    "AND m.id <> %s AND m.tier IN (0, %s) ORDER BY m.priority, m.created_at DESC, m.id DESC"
)


def memory(request, name):
    project = request.GET.get("project", "")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join('m.' + c for c in DETAIL_COLUMNS)}, p.name FROM memories_memory m "
            "LEFT JOIN projects_project p ON p.id = m.project_id "
            "WHERE m.name = %s AND coalesce(p.name, '') = %s",
            [name, project],
        )
        row = cursor.fetchone()
        if row is None:
            raise Http404(name)
        found = dict(zip([*DETAIL_COLUMNS, "project"], row, strict=True))
        found["tags"], found["refs"] = json.loads(found["tags"]), json.loads(found["refs"])
        cited = []
        if found["refs"]:  # as the page, which reads them only when there are some
            names = ", ".join(["%s"] * len(found["refs"]))
            cursor.execute(CITED.format(names=names), found["refs"])
            cited = cursor.fetchall()
        cursor.execute(CITERS, [name, found["id"], found["tier"]])
        citers = cursor.fetchall()
    context = Context({"m": found, "cited": cited, "citers": citers})
    return HttpResponse(DETAIL.render(context))


urlpatterns = [path("v1/memories", memories), path("memories/<str:name>/", memory)]
application = WSGIHandler()
