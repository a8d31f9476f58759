"""The accounts' sign-in backend: Django's ModelBackend, with the signed-in user of each
request read by a statement the ORM compiles once per process (a queryset built and
compiled per request cost many times the statement: bench/results/2026-12-01-detail-5)."""

import functools

from django.contrib.auth import backends, get_user_model
from django.db import DEFAULT_DB_ALIAS, connections

from memories.reads.rows import ModelRows


@functools.cache
def _statement() -> str:
    """Every column of the user of an id, the id its one parameter."""
    query = get_user_model()._default_manager.filter(pk=0).query
    return query.get_compiler(DEFAULT_DB_ALIAS).as_sql()[0]


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id):
        connection = connections[DEFAULT_DB_ALIAS]
        with connection.cursor() as cursor:
            cursor.execute(_statement(), [user_id])
            found = cursor.fetchone()
        if found is None:
            return None
        user = ModelRows.of(connection, get_user_model()).build(found)
        return user if self.user_can_authenticate(user) else None
