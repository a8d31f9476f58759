"""The Django floor: a minimal Django app answering the first 50 memories of the same store as
JSON, the same columns `/v1/memories` shows, with no middleware, token or form. Served by
gunicorn beside the app (bench/run.py), it is what `/v1/memories`' throughput is held against.

    MEMADMIN_FLOOR_DB=var/bench/100000-1/memadmin.sqlite3 gunicorn --chdir bench floor
"""

import os

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    SECRET_KEY="floor",
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ["MEMADMIN_FLOOR_DB"],
            "CONN_MAX_AGE": None,
        }
    },
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
