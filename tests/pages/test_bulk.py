"""Bulk actions on the list: one transaction, all or nothing, every refusal beside its row."""

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.utils import timezone

from memories.models import ChangeSet, Memory, Revision
from memories.writes import bulk as bulk_doors
from memories.writes import doors
from projects import writes as projects_writes
from tests.conftest import backdate
from tests.pages.conftest import chrome_free


@pytest.fixture
def three(db, project):
    a = doors.write("a", description="first", priority=1, body="a" * 60).memory
    b = doors.write("b", description="second", priority=2, body="b" * 60, references=["a"]).memory
    c = doors.write("c", project="webdev", description="third", priority=3, references=["a"])
    return a, b, c.memory


def bulk(client, *, ids=(), query="", **data):
    payload = {"query": query, **{k: str(v) for k, v in data.items()}}
    payload["id"] = [str(i) for i in ids]
    return client.post("/memories/_bulk/", payload, HTTP_HX_REQUEST="true")


def test_set_priority_on_the_selected_rows(operator, three):
    a, b, _ = three
    response = bulk(operator, ids=[a.id, b.id], action="set_priority", priority=7)
    html = response.content.decode()
    assert response.status_code == 200
    assert {m.name: m.priority for m in Memory.objects.all()} == {"a": 7, "b": 7, "c": 3}
    assert "Set priority 7 on 2 memories." in html
    assert chrome_free(html)
    assert 'id="budget" class="budget-strip" hx-swap-oob="true"' in html
    assert 'id="flash" class="flash-area" aria-live="polite" hx-swap-oob="true"' in html


def test_shift_priority_is_held_within_0_and_100_and_says_so(operator, three):
    a, b, c = three
    html = bulk(operator, ids=[a.id, b.id, c.id], action="shift_priority", shift=-2).content
    assert [m.priority for m in Memory.objects.order_by("name")] == [0, 0, 1]
    assert "by -2. a stopped at 0, as priorities run 0 to 100." in html.decode()
    html = bulk(operator, ids=[a.id], action="shift_priority", shift=100).content.decode()
    assert Memory.objects.get(name="a").priority == 100
    assert "stopped at" not in html


def test_set_load_mark_verified_and_move(operator, three):
    a, b, c = three
    bulk(operator, ids=[a.id, b.id], action="set_load", load="search")
    assert set(Memory.objects.filter(load="search").values_list("name", flat=True)) == {"a", "b"}
    backdate(a, days=100)
    bulk(operator, ids=[a.id], action="verify")
    a.refresh_from_db()
    assert timezone.now() - a.verified_at < dt.timedelta(minutes=1)
    response = bulk(operator, ids=[b.id], action="move", to="webdev")
    assert Memory.objects.get(name="b").project.name == "webdev"
    assert "Moved 1 memory to webdev." in response.content.decode()
    response = bulk(operator, ids=[b.id], action="move", to="")
    assert Memory.objects.get(name="b").project is None
    assert "Moved 1 memory to the global tier." in response.content.decode()
    bulk(operator, ids=[c.id], action="move", to="")
    assert Memory.objects.get(name="c").project is None


def test_a_refused_batch_changes_nothing_and_says_why_beside_each_row(
    operator, three, small_budget
):
    a, b, c = three
    response = bulk(
        operator, ids=[a.id, b.id, c.id], action="set_load", load="inline", query="project="
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert Memory.objects.filter(load="inline").count() == 0
    assert "Nothing was changed: 1 of 3 memories would be refused" in html
    assert "'b': inline memories would total" in html
    assert "(<code>MEMADMIN_INLINE_MAX_BYTES</code>) in the global band" in html
    assert '<a class="refusal-link" href="/budget/">See the global band’s budget</a>' in html
    # a (60 bytes) fits the 100-byte band; b would take it to 120; c has no body
    refused_rows = [row for row in html.split("<tbody") if 'class="refusal"' in row]
    assert len(refused_rows) == 1 and ">b</a>" in refused_rows[0]


def test_every_row_matching_the_filters(operator, three):
    response = bulk(operator, scope="matching", query="project=", action="set_priority", priority=9)
    assert response.status_code == 200
    assert {m.name: m.priority for m in Memory.objects.all()} == {"a": 9, "b": 9, "c": 3}


def test_every_row_a_search_found(operator, three):
    # By words: in the default (hybrid) mode all-MiniLM-L6-v2 also guesses "first" and "third"
    # near "second" (above the meaning floor), and a bulk action takes the guesses too.
    response = bulk(
        operator, scope="matching", query="q=second&mode=words", action="set_priority", priority=8
    )
    assert response.status_code == 200
    assert {m.name: m.priority for m in Memory.objects.all()} == {"a": 1, "b": 8, "c": 3}
    assert "Set priority 8 on 1 memory." in response.content.decode()


def test_matching_more_than_the_limit_is_refused(operator, three, monkeypatch):
    monkeypatch.setattr("memories.writes.bulk.BULK_LIMIT", 2)
    response = bulk(operator, scope="matching", action="verify")
    assert response.status_code == 400
    assert "3 memories match; a bulk action takes at most 2" in (response.content.decode())


def test_delete_asks_first_naming_who_references_them(operator, three):
    a, b, _ = three
    response = bulk(operator, ids=[a.id], action="delete", query="tag=x")
    html = response.content.decode()
    assert response.status_code == 200 and chrome_free(html)
    assert Memory.objects.count() == 3
    assert "Delete 1 memory?" in html
    assert "Still referenced by:" in html and ">b</a>" in html and ">c</a>" in html
    assert 'name="confirm" value="true"' in html and 'name="query" value="tag=x"' in html
    done = bulk(operator, ids=[a.id], action="delete", confirm="true")
    assert not Memory.objects.filter(name="a").exists()
    assert "Deleted 1 memory. Still referencing them, as markers to revisit: b, c." in (
        done.content.decode()
    )


def test_delete_confirmation_marks_citations_deleted_together(operator, three):
    a, b, _ = three
    html = bulk(operator, ids=[a.id, b.id], action="delete").content.decode()
    assert "Also referenced by b, deleted with it." in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "set_priority", "priority": "3"}, "Select some rows first"),
        ({"action": "set_priority", "id": "1"}, "Set priority to what?"),
        ({"action": "shift_priority", "id": "1", "shift": "x"}, "Enter a whole number"),
        ({"action": "launch", "id": "1"}, "Select a valid choice"),
        ({"action": "verify", "id": "one"}, "The selected rows are not valid"),
        ({"action": "move", "id": "1", "to": "no such"}, "starts with a letter or digit"),
        ({"action": "verify", "scope": "matching", "query": "expired=maybe"}, "true or false"),
    ],
)
def test_bad_bulk_input_is_a_400_with_a_sentence(operator, three, data, message):
    response = operator.post("/memories/_bulk/", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert message in response.content.decode()


def test_moving_to_an_unknown_project_is_refused(operator, three):
    a, _, _ = three
    response = bulk(operator, ids=[a.id], action="move", to="nowhere")
    assert response.status_code == 404
    assert "There is no project named" in response.content.decode()


def test_without_javascript_the_outcome_is_a_message_on_the_list(operator, three):
    a, _, _ = three
    response = operator.post(
        "/memories/_bulk/", {"action": "verify", "id": [a.id], "query": "project="}
    )
    assert response.status_code == 302 and response["Location"] == "/memories/?project="
    group = ChangeSet.objects.get()
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f'Marked 1 memory verified. <a class="undo-link" href="/history/changes/{group.id}/'
        '#undo-heading">Undo this change set</a>'
    ]


def test_a_bulk_change_that_changes_nothing_is_not_counted_recorded_or_undone(operator, three):
    a, b, c = three
    doors.write("a", project=None, load="inline")
    revisions = Revision.objects.count()
    response = bulk(operator, ids=[a.id, b.id, c.id], action="set_load", load="inline")
    html = response.content.decode()
    assert "Set load inline on 2 memories. 1 memory holds that already: left as they were." in html
    assert Revision.objects.count() == revisions + 2
    group = ChangeSet.objects.get()
    assert group.summary == "Set load inline on 2 memories"
    assert f'href="/history/changes/{group.id}/#undo-heading">Undo this change set</a>' in html
    undone = operator.post(f"/history/changes/{group.id}/", follow=True).content.decode()
    assert "2 memories put back" in undone
    assert Memory.objects.get(name="a").load == "inline"  # never part of the change


def test_a_bulk_change_of_nothing_at_all_records_no_change_set(operator, three):
    a, b, _ = three
    response = bulk(operator, ids=[a.id, b.id], action="set_load", load="index")
    html = response.content.decode()
    assert "Nothing was changed. 2 memories hold that already: left as they were." in html
    assert "Undo" not in html.split('id="flash"')[1]
    assert not ChangeSet.objects.exists()


def test_bulk_add_and_remove_a_tag_through_the_doors_and_undo(operator, three):
    a, b, c = three
    doors.write("b", project=None, tags=["Ops"])
    response = bulk(operator, ids=[a.id, b.id, c.id], action="add_tag", tag="ops")
    assert "Added the tag ops to 2 memories. 1 memory holds that already" in (
        response.content.decode()
    )
    assert Memory.objects.get(name="a").tags == ["ops"]
    assert Memory.objects.get(name="b").tags == ["Ops"]
    added = ChangeSet.objects.get()
    response = bulk(operator, ids=[a.id, b.id, c.id], action="remove_tag", tag="OPS")
    assert "Removed the tag OPS from 3 memories." in response.content.decode()
    assert [m.tags for m in Memory.objects.order_by("name")] == [[], [], []]
    removal = ChangeSet.objects.exclude(id=added.id).get()
    operator.post(f"/history/changes/{removal.id}/")
    assert [m.tags for m in Memory.objects.order_by("name")] == [["ops"], ["Ops"], ["ops"]]


def test_bulk_tag_needs_a_tag(operator, three):
    a, _, _ = three
    response = bulk(operator, ids=[a.id], action="add_tag", tag=" ")
    assert response.status_code == 400
    assert "Add the tag what? Give a value." in response.content.decode()


def test_a_budget_refusal_of_many_rows_names_the_band_once_with_a_link(
    operator, db, project, settings
):
    projects_writes.add("legacy")
    settings.MEMADMIN_INLINE_MAX_BYTES = 1000
    doors.write("rule", project="legacy", description="rule", body="r" * 900, load="inline")
    moving = [
        doors.write(
            f"w{n}", project="webdev", description=f"w {n}", body="w" * 60, load="inline"
        ).memory.id
        for n in range(4)
    ]
    response = bulk(operator, ids=moving, action="move", to="", query="project=webdev")
    html = response.content.decode()
    assert response.status_code == 409
    banner = html.split('id="flash"')[1]
    assert banner.count("inline memories would total") == 1
    assert "in the legacy band (global + legacy)" in banner
    assert '<a class="refusal-link" href="/budget/?project=legacy">' in banner
    assert "<code>load: index</code>" in banner and "`" not in banner
    assert html.count("It would take the legacy band (global + legacy) past") == 3
    assert Memory.objects.filter(project__name="webdev").count() == 4


def _many(count: int) -> list[Memory]:
    now = timezone.now()
    Memory.objects.bulk_create(
        Memory(
            name=f"m{i}", description=f"memory {i}", created_at=now, updated_at=now, verified_at=now
        )
        for i in range(count)
    )
    return list(Memory.objects.order_by("id"))


def test_the_bulk_limit_is_one_number_and_every_side_of_it_has_a_sentence(operator, db):
    """1,000 ids go through (docs/dashboard.md's number); 1,001 get the bulk limit's sentence, and
    so does a form too long to read at all."""
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS - 50
    assert limit == bulk_doors.BULK_LIMIT == 1000
    ids = [m.id for m in _many(bulk_doors.BULK_LIMIT)]
    response = bulk(operator, ids=ids, action="set_priority", priority=9)
    assert response.status_code == 200, response.content.decode()[-500:]
    assert "Set priority 9 on 1000 memories." in response.content.decode()
    response = bulk(operator, ids=[*ids, max(ids) + 1], action="set_priority", priority=8)
    assert response.status_code == 400
    assert "1,001 memories were selected; a bulk action takes at most 1,000" in (
        response.content.decode()
    )
    response = bulk(operator, ids=range(1, 3000), action="set_priority", priority=8)
    assert response.status_code == 400
    assert "a bulk action takes at most 1,000 memories at a time" in response.content.decode()
    assert set(Memory.objects.values_list("priority", flat=True)) == {9}
