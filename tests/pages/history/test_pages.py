"""The history pages: History tab, audit log and exports, change sets and undo, the trash."""

import csv
import io
import json
import re

import pytest

from memadmin.accounts import roles
from memadmin.pages.memories.detail import body_digest
from memories.models import ChangeSet, Memory, Revision, TrashedMemory
from memories.writes import doors, history

HTMX = {"HTTP_HX_REQUEST": "true"}


def _chrome_free(html: str) -> bool:
    return all(marker not in html for marker in ("<html", "site-header", "site-nav"))


@pytest.fixture
def store(write, project):
    write("rule", priority=4, body="one\ntwo", tags=["style"])
    doors.write("rule", priority=40)
    write("pnpm", project="webdev", description="Uses pnpm")
    write("gone", description="About to go", body="bye")
    doors.delete("gone")


def _rule_versions() -> list[Revision]:
    return list(Revision.objects.filter(name="rule").order_by("id"))


def test_the_history_tab_shows_each_revision_and_restore_only_to_writers(store, signed_in):
    auditor, operator = signed_in(roles.AUDITOR), signed_in(roles.OPERATOR)
    page = auditor.get("/memories/rule/history/?project=")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('class="panel revision"') == 2
    assert "<del>4</del> → <ins>40</ins>" in html
    assert "the current version" in html
    assert "Restore this version" not in html
    assert (
        'href="/memories/rule/history/?project="' in auditor.get("/memories/rule/").content.decode()
    )
    html = operator.get("/memories/rule/history/?project=").content.decode()
    assert html.count("Restore this version") == 1  # not on the current version


def test_the_history_tab_runs_the_same_queries_for_many_revisions(
    store, signed_in, django_assert_max_num_queries
):
    client = signed_in(roles.OPERATOR)
    client.get("/memories/rule/history/?project=")
    for priority in range(10, 40):
        doors.write("rule", priority=priority)
    with django_assert_max_num_queries(9):
        response = client.get("/memories/rule/history/?project=")
    assert response.content.decode().count('class="panel revision"') == 32


def test_history_paging_is_an_htmx_fragment(store, signed_in):
    for priority in range(60):
        doors.write("rule", priority=priority)
    client = signed_in(roles.AUDITOR)
    first = client.get("/memories/rule/history/?project=").content.decode()
    assert "Older ›" in first
    oldest = _rule_versions()[0].id
    older = client.get(f"/memories/rule/history/?project=&before={oldest + 2}", **HTMX)
    html = older.content.decode()
    assert _chrome_free(html)
    assert html.count('class="panel revision"') == 2
    assert "‹ Newer" in html


def test_restore_this_version_from_the_page(store, signed_in):
    operator = signed_in(roles.OPERATOR, "bob")
    first = _rule_versions()[0]
    response = operator.post(f"/history/revisions/{first.id}/restore/", {"reason": "40 was a typo"})
    assert response.status_code == 302
    assert response["Location"] == "/memories/rule/history/?project="
    assert Memory.objects.get(name="rule").priority == 4
    revert = Revision.objects.order_by("-id").first()
    assert (revert.action, revert.door, revert.actor, revert.reason) == (
        "revert",
        "page",
        "bob",
        "40 was a typo",
    )


def test_an_auditor_cannot_restore_and_a_refusal_says_why(store, signed_in, small_budget):
    first = _rule_versions()[0]
    auditor = signed_in(roles.AUDITOR)
    assert auditor.post(f"/history/revisions/{first.id}/restore/").status_code == 403
    assert Memory.objects.get(name="rule").priority == 40
    deletion = Revision.objects.get(name="gone", action="delete")
    response = signed_in(roles.OPERATOR).post(f"/history/revisions/{deletion.id}/restore/")
    assert response.status_code == 409
    assert "restore the memory from the trash instead" in response.content.decode()
    assert signed_in(roles.OPERATOR).post("/history/revisions/999999/restore/").status_code == 404


def test_page_writes_are_recorded_as_the_page_door_with_the_user_and_a_reason(store, signed_in):
    operator = signed_in(roles.OPERATOR, "bob")
    response = operator.post(
        "/memories/rule/?project=",
        {
            "description": "about rule",
            "body": "one\ntwo",
            "priority": "7",
            "load": "index",
            "tags": "style",
            "body_sha": body_digest("one\ntwo"),
            "reason": "rebalancing",
        },
    )
    assert response.status_code == 302
    revision = Revision.objects.order_by("-id").first()
    assert (revision.door, revision.username, revision.reason) == ("page", "bob", "rebalancing")
    assert (
        signed_in(roles.OPERATOR)
        .post("/memories/rule/?project=", {"reason": "x" * 1001})
        .status_code
        == 400
    )


def test_the_audit_log_filters_by_user_tier_door_memory_action_and_time(store, signed_in):
    with history.acting(door=history.API, label="script"):
        doors.write("rule", priority=1)
    client = signed_in(roles.AUDITOR)

    def names(query: str) -> list[tuple[str, str]]:
        response = client.get("/history/?" + query, **HTMX)
        assert response.status_code == 200, response.content
        assert _chrome_free(response.content.decode())
        return [
            (r.name, r.action)
            for r in Revision.objects.filter(
                id__in=[int(i) for i in _revision_ids(response.content.decode())]
            ).order_by("-id")
        ]

    assert names("door=api") == [("rule", "update")]
    assert names("project=webdev") == [("pnpm", "create")]
    assert names("memory=gone") == [("gone", "delete"), ("gone", "create")]
    assert names("action=delete") == [("gone", "delete")]
    assert names("user=nobody-there") == []
    assert len(names("since=2000-01-01&until=2999-01-01")) == 6
    assert names("until=2000-01-01") == []
    page = client.get("/history/?since=yesterday-ish")
    assert page.status_code == 400
    assert "is not an RFC 3339 timestamp" in page.content.decode()


def _revision_ids(html: str) -> list[str]:
    return re.findall(r'href="/history/revisions/(\d+)/"', html)


def test_the_audit_log_pages_by_keyset(store, signed_in):
    for priority in range(60):
        doors.write("rule", priority=priority)
    client = signed_in(roles.AUDITOR)
    first = client.get("/history/").content.decode()
    ids = _revision_ids(first)
    assert len(ids) == 50
    older = client.get(f"/history/?before={ids[-1]}").content.decode()
    assert len(_revision_ids(older)) == 15
    assert "‹ Newer" in older and "Older ›" not in older


def test_the_log_exports_as_csv_and_json_with_its_filters(store, signed_in):
    with history.acting(reason="=HYPERLINK(evil)"):
        doors.write("rule", source="a talk")
    client = signed_in(roles.AUDITOR)
    response = client.get("/history/log.csv?memory=rule")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:3] == ["id", "at", "memory"]
    assert [row[4] for row in rows[1:]] == ["update", "update", "create"]
    assert (rows[1][9], rows[1][11]) == ("'=HYPERLINK(evil)", "source none → a talk")
    data = json.loads(b"".join(client.get("/history/log.json?project=webdev").streaming_content))
    (only,) = data["revisions"]
    assert (only["memory"], only["action"], only["door"]) == (
        {"id": only["memory"]["id"], "name": "pnpm", "project": "webdev"},
        "create",
        "direct",
    )
    assert client.get("/history/log.xml").status_code == 404
    assert client.get("/history/log.csv?door=window").status_code == 400


def test_undo_a_change_set_from_its_page(store, signed_in):
    with history.change_set("Raise both", door=history.BULK) as group:
        doors.write("rule", priority=0)
        doors.write("pnpm", project="webdev", priority=0)
    auditor = signed_in(roles.AUDITOR)
    page = auditor.get(f"/history/changes/{group.id}/").content.decode()
    assert "Raise both" in page and "Undo change set" not in page
    assert auditor.post(f"/history/changes/{group.id}/").status_code == 403
    listing = auditor.get("/history/changes/").content.decode()
    assert f'href="/history/changes/{group.id}/"' in listing
    operator = signed_in(roles.OPERATOR)
    response = operator.post(f"/history/changes/{group.id}/", {"reason": "too eager"})
    undo_set = ChangeSet.objects.get(undoes=group)
    assert response.status_code == 302
    assert response["Location"] == f"/history/changes/{undo_set.id}/"
    assert Memory.objects.get(name="rule").priority == 40
    assert undo_set.reason == "too eager"
    again = operator.post(f"/history/changes/{group.id}/")
    assert again.status_code == 409
    assert "was undone already" in again.content.decode()


def test_a_refused_undo_lists_each_reason_linked_and_keeps_the_reason_typed(store, signed_in):
    with history.change_set("Raise rule") as group:
        doors.write("rule", priority=0)
    doors.write("rule", priority=3)
    change = Revision.objects.order_by("-id").first()
    response = signed_in(roles.OPERATOR).post(
        f"/history/changes/{group.id}/", {"reason": "rolled back"}
    )
    page = response.content.decode()
    assert response.status_code == 409
    assert f'<a href="/history/revisions/{change.id}/">it changed since, in revision' in page
    assert (
        'name="reason" type="text" maxlength="1000" autocomplete="off" value="rolled back"' in page
    )


def test_an_undo_puts_back_what_it_can_and_names_what_it_left(store, signed_in):
    with history.change_set("Raise both", door=history.BULK) as group:
        doors.write("rule", priority=0)
        doors.write("pnpm", project="webdev", priority=0)
    doors.write("pnpm", project="webdev", priority=9)
    change = Revision.objects.order_by("-id").first()
    operator = signed_in(roles.OPERATOR)
    response = operator.post(f"/history/changes/{group.id}/", follow=True)
    page = response.content.decode()
    assert Memory.objects.get(name="rule").priority == 40
    assert Memory.objects.get(name="pnpm").priority == 9
    assert "Undid change set" in page and "Left as they are now: " in page
    assert f'<a href="/history/revisions/{change.id}/">it changed since, in revision' in page


def test_the_trash_restores_for_operators_and_purges_for_admins(store, signed_in):
    entry = TrashedMemory.objects.get()
    auditor, operator, admin = (
        signed_in(roles.AUDITOR),
        signed_in(roles.OPERATOR),
        signed_in(roles.ADMIN),
    )
    restore, purge = f"/history/trash/{entry.id}/restore/", f"/history/trash/{entry.id}/purge/"
    page = auditor.get("/history/trash/").content.decode()
    assert "gone" in page and "About to go" in page
    assert restore not in page and purge not in page
    assert auditor.post(restore).status_code == 403
    operator_page = operator.get("/history/trash/").content.decode()
    assert restore in operator_page and purge not in operator_page
    assert operator.get(purge).status_code == 403
    assert operator.post(purge).status_code == 403
    assert purge in admin.get("/history/trash/").content.decode()
    assert "for good" in admin.get(f"/history/trash/{entry.id}/purge/").content.decode()
    response = admin.post(f"/history/trash/{entry.id}/purge/")
    assert response.status_code == 302
    assert not TrashedMemory.objects.exists()
    assert admin.post(f"/history/trash/{entry.id}/purge/").status_code == 404


def test_restoring_from_the_trash_and_its_refusal(store, signed_in, write):
    operator = signed_in(roles.OPERATOR)
    entry = TrashedMemory.objects.get()
    write("gone", description="a new one")
    response = operator.post(f"/history/trash/{entry.id}/restore/")
    assert response.status_code == 409
    assert "cannot come back from the trash" in response.content.decode()
    doors.delete("gone")
    response = operator.post(f"/history/trash/{entry.id}/restore/")
    assert response.status_code == 302
    assert Memory.objects.get(name="gone").description == "About to go"


def test_a_revision_page_for_a_memory_in_the_trash(store, signed_in):
    creation = Revision.objects.get(name="gone", action="create")
    page = signed_in(roles.OPERATOR).get(f"/history/revisions/{creation.id}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "This memory is in the" in html
    assert "Restore this version" not in html
    assert signed_in(roles.AUDITOR).get("/history/revisions/424242/").status_code == 404


def test_no_role_no_history(store, signed_in, client):
    roleless = signed_in(None)
    for url in ("/history/", "/history/trash/", "/history/changes/", "/history/log.csv"):
        assert roleless.get(url).status_code == 403
        assert client.get(url).status_code == 302


def test_the_audit_log_runs_the_same_queries_for_a_full_page(
    store, signed_in, django_assert_max_num_queries
):
    client = signed_in(roles.AUDITOR)
    client.get("/history/")
    for priority in range(60):
        doors.write("rule", priority=priority)
    with django_assert_max_num_queries(9):
        response = client.get("/history/?project=")
    assert len(_revision_ids(response.content.decode())) == 50


def test_the_change_sets_undo_column_offers_undo_to_writers(store, signed_in):
    with history.change_set("Raise both", door=history.BULK) as group:
        doors.write("rule", priority=0)
    undo_link = f'<a href="/history/changes/{group.id}/#undo-heading">Undo…</a>'
    assert undo_link in signed_in(roles.OPERATOR).get("/history/changes/").content.decode()
    auditor_page = signed_in(roles.AUDITOR).get("/history/changes/").content.decode()
    assert undo_link not in auditor_page and "can be undone by an operator" in auditor_page
    operator = signed_in(roles.OPERATOR)
    operator.post(f"/history/changes/{group.id}/")
    listing = operator.get("/history/changes/").content.decode()
    undo_set = ChangeSet.objects.get(undoes=group)
    assert f'undone by <a href="/history/changes/{undo_set.id}/">set {undo_set.id}</a>' in listing
    assert f"Undo (redo set {group.id})…" in listing


def test_the_audit_log_words_changes_as_the_history_tab_does(store, signed_in):
    doors.write("rule", verified=True)
    log = signed_in(roles.AUDITOR).get("/history/").content.decode()
    assert "<dt>Verified</dt>" in log and "<dt>Priority</dt>" in log
    assert "verified_at" not in log
    assert not re.search(r">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+", log)  # no raw ISO times


def test_a_move_is_worded_as_tiers_in_the_log_export_and_on_the_pages(store, signed_in):
    doors.move("pnpm", project="webdev", to=None)
    client = signed_in(roles.AUDITOR)
    rows = list(
        csv.reader(io.StringIO(b"".join(client.get("/history/log.csv").streaming_content).decode()))
    )
    assert rows[1][4] == "move"
    assert rows[1][11] == "moved from project 'webdev' to the global tier"
    for url in ("/history/", "/memories/pnpm/history/?project="):
        html = client.get(url).content.decode()
        assert "<del>webdev</del> → <ins>global</ins>" in html
