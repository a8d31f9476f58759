"""The session store: Django's database sessions, read by one compiled statement."""

import datetime as dt

from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.web.sessions import SessionStore


def test_a_saved_session_reads_back_in_one_statement(db):
    saved = SessionStore()
    saved["seen"] = [1, "two"]
    saved.save()
    with CaptureQueriesContext(connection) as queries:
        loaded = SessionStore(saved.session_key)
        assert loaded["seen"] == [1, "two"]
    assert len(queries) == 1
    assert loaded.session_key == saved.session_key


def test_an_expired_or_unknown_session_is_empty_and_gets_a_new_key(db):
    saved = SessionStore()
    saved["seen"] = True
    saved.save()
    Session.objects.filter(session_key=saved.session_key).update(
        expire_date=timezone.now() - dt.timedelta(seconds=1)
    )
    expired = SessionStore(saved.session_key)
    assert "seen" not in expired and expired.session_key is None
    unknown = SessionStore("x" * 32)
    assert dict(unknown.items()) == {} and unknown.session_key is None
    assert not unknown.exists("x" * 32)
