"""Supersession on the pages: the edit panel's Supersede… action, both memories' pages linking
each other, the badge in a search, the undo from the history, and hygiene's candidates."""

from html.parser import HTMLParser

from memories.models import ChangeSet, Memory
from memories.writes import doors


class _Links(HTMLParser):
    """Every <a>: its attributes and its text."""

    def __init__(self):
        super().__init__()
        self.links: list[dict] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open = {**dict(attrs), "text": ""}
            self.links.append(self._open)

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data

    def handle_endtag(self, tag):
        if tag == "a":
            self._open = None


def links(response) -> list[dict]:
    parser = _Links()
    parser.feed(response.content.decode())
    return parser.links


def _hosts():
    doors.write("db-host", description="The database host is db-1.internal")
    doors.write("db-host-2", description="The database host is db-2.internal")


def test_the_edit_panel_offers_supersede_and_its_form_marks_the_old_memory(operator):
    _hosts()
    page = operator.get("/memories/db-host-2/?project=&edit=1")
    action = next(a for a in links(page) if a["text"] == "Supersede…")
    assert action["href"] == "/memories/db-host-2/supersede/?project="
    assert operator.get(action["href"]).status_code == 200
    response = operator.post(action["href"], {"supersedes": "db-host", "reason": "moved hosts"})
    assert response.status_code == 302 and response["Location"].startswith("/memories/db-host-2/")
    old = Memory.objects.get(name="db-host")
    assert old.superseded_by == "db-host-2" and old.is_expired()
    group = ChangeSet.objects.get()
    assert group.door == "page" and group.username == "bob"
    assert group.revisions.get(name="db-host").reason == "moved hosts; Superseded by 'db-host-2'."


def test_a_refused_supersession_is_the_form_again_with_the_sentence(operator):
    _hosts()
    response = operator.post("/memories/db-host-2/supersede/?project=", {"supersedes": "nope"})
    assert response.status_code == 400
    assert "There is no memory named &#x27;nope&#x27; in the global tier" in (
        response.content.decode()
    )
    assert not Memory.objects.exclude(superseded_by=None).exists()


def test_an_auditor_may_not_supersede(auditor):
    _hosts()
    assert (
        auditor.post(
            "/memories/db-host-2/supersede/?project=", {"supersedes": "db-host"}
        ).status_code
        == 403
    )
    assert Memory.objects.get(name="db-host").superseded_by is None


def test_both_pages_link_each_other(auditor):
    _hosts()
    doors.write("db-host-2", supersedes="db-host")
    old_links = links(auditor.get("/memories/db-host/?project="))
    successor = next(a for a in old_links if a.get("id") == "successor")
    assert successor["href"] == "/memories/db-host-2/?project=" and successor["text"] == "db-host-2"
    assert any(
        a["text"] == "superseded by 'db-host-2'" and "badge-superseded" in a.get("class", "")
        for a in old_links
    )
    new_links = links(auditor.get(successor["href"]))
    assert {"href": "/memories/db-host/?project=", "class": "mono", "text": "db-host"} in new_links


def test_a_search_on_the_list_marks_the_superseded_hit(auditor):
    _hosts()
    doors.write("db-host-2", supersedes="db-host")
    found = links(auditor.get("/memories/", {"q": "database host", "mode": "words"}))
    badge = next(a for a in found if "badge-superseded" in a.get("class", ""))
    assert badge == {
        "class": "badge badge-superseded",
        "href": "/memories/db-host-2/?project=",
        "text": "superseded by 'db-host-2'",
    }


def test_undoing_the_change_set_from_the_history_puts_the_old_memory_back(operator):
    _hosts()
    operator.post("/memories/db-host-2/supersede/?project=", {"supersedes": "db-host"})
    group = ChangeSet.objects.get()
    response = operator.post(f"/history/changes/{group.id}/")
    assert response.status_code == 302
    old = Memory.objects.get(name="db-host")
    assert old.superseded_by is None and old.expires_at is None
    assert Memory.objects.get(name="db-host-2").description == "The database host is db-2.internal"


def test_hygiene_lists_a_fact_and_its_correction_and_marks_nothing(operator):
    _hosts()
    doors.write("deploy", description="Deploys go out every night at two")
    doors.write("deploy-again", description="Deploys go out every night at two, on the build host")
    page = operator.get("/hygiene/corrections/")
    assert page.status_code == 200
    offered = [a["href"] for a in links(page) if a["text"] == "Supersede…"]
    assert offered == ["/memories/db-host-2/supersede/?project=&supersedes=db-host"]
    assert not Memory.objects.exclude(superseded_by=None).exists()
    form = operator.get(offered[0]).content.decode()
    assert 'value="db-host"' in form
