"""Django's database sessions, each read by a statement the ORM compiles once per process
(settings.SESSION_ENGINE): every page reads its session first, and a queryset built and
compiled per request cost many times the statement (bench/results/2026-12-01-detail-5).
Saving, expiry and
everything else are Django's own."""

import functools

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

_KEY = "session key"


@functools.cache
def _statement() -> str:
    """The session data of a key unexpired at a moment: the key and the moment its params."""
    queryset = Session.objects.filter(session_key=_KEY).filter(expire_date__gt=timezone.now())
    sql, params = queryset.values_list("session_data").query.get_compiler(DEFAULT_DB_ALIAS).as_sql()
    if len(params) != 2 or params[0] != _KEY:
        raise RuntimeError(f"unexpected session statement {sql!r}")
    return sql


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        if self.model is not Session:
            return super()._get_session_from_db()
        connection = connections[DEFAULT_DB_ALIAS]
        moment = Session._meta.get_field("expire_date").get_db_prep_value(
            timezone.now(), connection
        )
        with connection.cursor() as cursor:
            cursor.execute(_statement(), [self.session_key, moment])
            found = cursor.fetchone()
        if found is None:
            self._session_key = None
            return None
        return Session(session_key=self.session_key, session_data=found[0])
