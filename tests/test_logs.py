"""The log: a request refused for what its client sent is one line, not a traceback."""

import io
import logging

import pytest
from django.test import Client

from memadmin.logs import RefusalsOnOneLine


@pytest.fixture
def log():
    """What the configured console handler writes, while the test runs."""
    handler = next(
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, RefusalsOnOneLine) for f in h.filters)
    )
    written = io.StringIO()
    previous = handler.setStream(written)
    yield written
    handler.setStream(previous)


def test_a_bad_host_is_one_line(db, log):
    assert Client().get("/v1/memories", HTTP_HOST="evil.example").status_code == 400
    lines = log.getvalue().strip().splitlines()
    assert len(lines) == 1 and "evil.example" in lines[0]


def test_a_body_over_the_limit_is_one_line(db, log, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    answer = Client().put("/v1/memories/x", data=b"x" * 2048, content_type="application/json")
    assert answer.status_code == 413
    lines = log.getvalue().strip().splitlines()
    assert len(lines) == 1 and "larger than" in lines[0]


def test_a_failure_of_ours_keeps_its_traceback(log):
    try:
        raise RuntimeError("ours")
    except RuntimeError:
        logging.getLogger("memadmin.api.responses").exception("unexpected failure")
    assert "Traceback" in log.getvalue()
