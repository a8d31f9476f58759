"""Security headers, htmx's configuration, and pages free of inline script and style."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders

from memories.writes import doors


@pytest.fixture
def note(db):
    return doors.write("note", description="a note", body="text")


@pytest.mark.parametrize("path", ["/", "/memories/", "/memories/note/?project=", "/sign-in/"])
def test_security_headers(operator, note, path):
    response = operator.get(path)
    policy = response["Content-Security-Policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy and "form-action 'self'" in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


class Inline(HTMLParser):
    def __init__(self):
        super().__init__()
        self.problems = []
        self.scripts = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts.append(attrs.get("src"))
            if not attrs.get("src"):
                self.problems.append("inline script")
        if tag == "style" or "style" in attrs:
            self.problems.append(f"inline style on <{tag}>")
        self.problems += [f"{name} on <{tag}>" for name in attrs if name.startswith("on")]


@pytest.mark.parametrize(
    "path", ["/", "/memories/", "/memories/note/?project=", "/memories/_new/", "/sign-in/"]
)
def test_pages_have_no_inline_script_or_style(operator, note, path):
    parser = Inline()
    parser.feed(operator.get(path).content.decode())
    assert parser.problems == []


def test_htmx_is_our_pinned_major_2_with_eval_and_script_tags_off(operator, note):
    html = operator.get("/memories/").content.decode()
    parser = Inline()
    parser.feed(html)
    assert "/static/vendor/htmx-2.0.11.min.js" in parser.scripts
    with open(finders.find("vendor/htmx-2.0.11.min.js")) as handle:
        assert 'version:"2.' in handle.read()
    config = json.loads(re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", html).group(1))
    assert config["allowEval"] is False and config["allowScriptTags"] is False
    assert config["includeIndicatorStyles"] is False  # it would inject a <style> the CSP blocks
    assert config["historyCacheSize"] == 0  # no copy of memories kept in localStorage
    assert re.search(r"""<body hx-headers='\{"X-CSRFToken": "[A-Za-z0-9]+"\}'""", html)
    assert 'hx-indicator="#loading"' in html and 'id="loading" class="htmx-indicator' in html


def test_error_pages_are_ours(operator, db):
    response = operator.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is no page at this address." in response.content.decode()
