"""The Django floor: a minimal Django app answering the first 50 memories of the same store as
JSON, the same columns `/v1/memories` shows, with no middleware, token or form. Served by
gunicorn beside the app (bench/run.py), it is what `/v1/memories`' throughput is held against.

    MEMADMIN_FLOOR_DB=var/bench/100000-1/memadmin.sqlite3 gunicorn --chdir bench floor
    MEMADMIN_DATABASE_URL=postgres://u@host:port/db gunicorn --chdir bench floor
"""

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
from django.http import JsonResponse  # noqa: E402
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


urlpatterns = [path("v1/memories", memories)]
application = WSGIHandler()
