"""Request bodies are held to their limit from Content-Length before anything reads them, and
a form's `reason` is read only once access is granted: an anonymous upload is never parsed
(it was spooled to a temporary file before its 403)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.test import Client

from memories.models import Revision
from memories.writes import doors

RECEIVED: list[int] = []  # bytes of uploaded files the handler below was given


class RecordingUploadHandler(TemporaryFileUploadHandler):
    """Django's handler spooling uploads to a temporary file, noting what it was given."""

    def receive_data_chunk(self, raw_data, start):
        RECEIVED.append(len(raw_data))
        return super().receive_data_chunk(raw_data, start)


@pytest.fixture
def recording(settings):
    settings.FILE_UPLOAD_HANDLERS = [f"{__name__}.RecordingUploadHandler"]
    RECEIVED.clear()
    yield RECEIVED
    RECEIVED.clear()


def _anonymous_with_csrf_cookie() -> Client:
    """A visitor holding a CSRF cookie, as anyone gets from the sign-in page: Django's CSRF
    check would read the form for its token."""
    client = Client(enforce_csrf_checks=True)
    client.get("/sign-in/")
    assert "csrftoken" in client.cookies
    return client


BIG = 3 * 1024 * 1024  # past the 2 MiB form limit, under the upload limit


def big_file() -> SimpleUploadedFile:
    return SimpleUploadedFile("big.zip", b"\x00" * BIG)


@pytest.mark.parametrize("path", ["/memories/_bulk/", "/sign-in/", "/snapshots/preview/"])
def test_a_large_anonymous_post_is_refused_unread(db, recording, path):
    client = _anonymous_with_csrf_cookie()
    response = client.post(path, {"snapshot": big_file(), "reason": "x"})
    assert response.status_code == 413
    assert "larger than this server accepts (2 MiB); nothing was saved." in (
        response.content.decode()
    )
    assert recording == [], "no byte of the upload was parsed"


def test_a_large_post_under_v1_is_a_json_413_unread(db, recording):
    response = Client().post("/v1/projects", {"snapshot": big_file()})
    assert response.status_code == 413
    assert response.json()["max_bytes"] == 2 * 1024 * 1024
    assert recording == []


def test_the_upload_allowance_is_for_a_signed_in_user(admin, recording, settings):
    """The snapshot upload may be larger than a form, up to its own limit, for an admin."""
    response = admin.post("/snapshots/preview/", {"snapshot": big_file()})
    assert response.status_code == 400
    assert "The upload is not a zip archive." in response.content.decode()
    assert sum(recording) == BIG
    recording.clear()
    settings.MEMADMIN_MAX_UPLOAD_BYTES = 2 * 1024 * 1024
    response = admin.post("/snapshots/preview/", {"snapshot": big_file()})
    assert response.status_code == 413
    assert "A snapshot upload is at most 2 MiB." in response.content.decode()
    assert recording == []


def test_a_refused_visitor_never_has_the_reason_read(auditor, db, monkeypatch):
    """The body of a write the role does not allow is left unread: the reason too."""
    doors.write("rule", description="d")
    read = []
    monkeypatch.setattr("memadmin.web.acting.posted_reason", lambda request: read.append(1))
    response = auditor.post("/memories/rule/?project=", {"description": "e", "reason": "r"})
    assert response.status_code == 403
    assert read == []


def test_a_reason_is_kept_with_the_writes_it_was_given_for(operator, db):
    doors.write("rule", description="d")
    response = operator.post(
        "/memories/rule/?project=",
        {"description": "changed", "priority": "5", "load": "index", "reason": "a typo"},
    )
    assert response.status_code in (200, 302)
    assert Revision.objects.order_by("-id").first().reason == "a typo"
