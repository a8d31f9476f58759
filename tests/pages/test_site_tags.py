"""The page frame's tags: the main menu and page addresses worked out once per process, and
fragments kept by what they show."""

import pytest
from django.template import Context, Engine, TemplateSyntaxError
from django.urls import reverse

from memadmin.templatetags import site

ENGINE = Engine(libraries={"site": "memadmin.templatetags.site"})


def test_page_url_is_the_address_url_gives():
    for name in ("overview", "logout", "memories:list", "insights:graph"):
        assert site.page_url(name) == reverse(name)


def test_the_menu_marks_the_page_and_shows_admin_only_to_an_admin(admin, auditor):
    admin_page = admin.get("/memories/").content.decode()
    assert '<a href="/memories/" aria-current="page">All memories</a>' in admin_page
    assert "Accounts</a>" in admin_page
    auditor_page = auditor.get("/budget/").content.decode()
    assert '<a href="/budget/" aria-current="page">Budget</a>' in auditor_page
    assert '<a href="/memories/" aria-current="page">' not in auditor_page
    assert "Accounts</a>" not in auditor_page


def _drawn(key, shown):
    template = ENGINE.from_string(
        "{% load site %}{% drawn_once key %}{{ shown }}{% end_drawn_once %}"
    )
    return template.render(Context({"key": key, "shown": shown}))


def test_a_fragment_is_drawn_again_only_when_its_key_changes():
    assert _drawn(("a fragment", 1), "first") == "first"
    assert _drawn(("a fragment", 1), "second") == "first"  # the same key: what it showed
    assert _drawn(("a fragment", 2), "second") == "second"
    assert _drawn(None, "third") == "third"  # no key: drawn each time
    assert _drawn(None, "fourth") == "fourth"


def test_a_fragment_is_escaped_once_whether_drawn_or_kept():
    assert _drawn(("escaped",), "<b>") == "&lt;b&gt;"
    assert _drawn(("escaped",), "<i>") == "&lt;b&gt;"


def test_a_large_fragment_is_drawn_each_time():
    large = "x" * (site.KEPT_CHARS + 1)
    assert _drawn(("large",), large) == large
    assert _drawn(("large",), "small") == "small"


def test_only_the_latest_fragments_are_kept():
    drawings = site._Drawings(size=2)
    for number in range(3):
        drawings.keep((number,), str(number))
    assert drawings.get((0,)) is None
    assert drawings.get((1,)) == "1"
    drawings.keep((3,), "3")  # (1,) was asked for last: (2,) goes
    assert drawings.get((2,)) is None and drawings.get((1,)) == "1"


def test_drawn_once_takes_one_key():
    with pytest.raises(TemplateSyntaxError, match="one key"):
        ENGINE.from_string("{% load site %}{% drawn_once %}x{% end_drawn_once %}")
