"""One memory's page: fields, body, references both ways, the edit form, delete, create."""

import datetime as dt
import html
import re

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from memadmin.pages.memories.detail import body_digest, content_key, initial_values
from memadmin.pages.memories.forms import MemoryForm
from memories.models import Memory
from memories.reads import backlinks
from memories.writes import doors
from projects import writes as projects
from tests.conftest import backdate
from tests.pages.conftest import chrome_free

BODY = "# Deploys\n\nGo through **bastion-2**.\n\n- one\n- two\n"


@pytest.fixture
def memory(db, project):
    doors.write("deploy-host", description="Where deploys go", body="host-7")
    doors.write("citer", project="webdev", description="cites the note", references=["note"])
    note = doors.write(
        "note",
        description="Deploy notes",
        body=BODY,
        tags=["ops", "infra"],
        references=["deploy-host", "docs/runbook.md"],
        priority=3,
        source="ops chat",
    ).memory
    return backdate(note, days=47, verified_days=1)


def test_every_link_to_a_memory_is_its_absolute_url(auditor, memory):
    citer = Memory.objects.get(name="citer")
    assert memory.get_absolute_url() == "/memories/note/?project="
    assert citer.get_absolute_url() == "/memories/citer/?project=webdev"
    assert auditor.get(citer.get_absolute_url()).status_code == 200
    # The list's rows, a memory's page and the graph's data each link to it so.
    assert f'href="{citer.get_absolute_url()}"' in auditor.get("/memories/").content.decode()
    page = auditor.get(memory.get_absolute_url()).content.decode()
    assert f'href="{citer.get_absolute_url()}"' in page
    nodes = auditor.get("/graph/data/").json()["nodes"]
    assert {node["url"] for node in nodes if node["kind"] == "memory"} == {
        memory.get_absolute_url(),
        citer.get_absolute_url(),
        "/memories/deploy-host/?project=",
    }


def edit(client, memory, **changes):
    """What the browser sends from the page it showed of `memory` (every field with its
    hidden initial), with some fields changed."""
    form = MemoryForm(initial=initial_values(memory), projects=["webdev"])
    data = {"body_sha": body_digest(memory.body)}
    for name, field in form.fields.items():
        if name == "verified":
            continue
        value = form[name].value()
        shown = field.prepare_value(value) if hasattr(field, "prepare_value") else value
        shown = "" if shown is None else str(shown)
        data[name] = shown
        data[f"initial-{name}"] = shown
    data["body"] = data["body"].replace("\n", "\r\n")  # as a browser sends a textarea
    data.update({key: str(value) for key, value in changes.items()})
    return client.post(f"/memories/{memory.name}/?project=", data)


def test_every_field_and_the_caption(auditor, memory):
    html = auditor.get("/memories/note/?project=").content.decode()
    assert "Recorded 47 days ago, verified yesterday." in html
    for text in ("Deploy notes", "ops chat", "priority 3", ">ops</a>", ">infra</a>"):
        assert text in html
    assert "0 times by the agent" in html
    assert "<h1>Deploys</h1>" in html and "<strong>bastion-2</strong>" in html


def test_references_resolved_and_dangling_marked_and_referenced_by(auditor, memory):
    html = auditor.get("/memories/note/?project=").content.decode()
    assert 'href="/memories/deploy-host/?project="' in html and "Where deploys go" in html
    assert 'docs/runbook.md</span> <span class="badge badge-dangling"' in html
    assert 'href="/memories/citer/?project=webdev"' in html and "cites the note" in html


def test_the_raw_toggle_is_a_fragment(auditor, memory, htmx):
    response = auditor.get("/memories/note/?project=&view=raw", **htmx)
    html = response.content.decode()
    assert chrome_free(html)
    assert '<pre class="raw-body" id="raw-body">\n# Deploys' in html
    assert 'aria-current="true">Raw</a>' in html
    assert "HX-Request" in response["Vary"]
    full = auditor.get("/memories/note/?project=&view=raw").content.decode()
    assert "site-header" in full and "raw-body" in full


def test_an_edit_sends_only_what_changed(operator, memory):
    Memory.objects.filter(id=memory.id).update(priority=1)  # someone else, meanwhile
    response = edit(operator, memory, description="Deploy notes, reworded")
    assert response.status_code == 302
    saved = Memory.objects.get(id=memory.id)
    assert saved.description == "Deploy notes, reworded"
    assert saved.priority == 1  # theirs, kept
    assert saved.body == BODY  # untouched, line endings and all
    assert saved.verified_at == memory.verified_at


def test_a_body_edit_keeps_the_stored_line_endings(operator, memory):
    edit(operator, memory, body="line one\r\nline two\r\n")
    assert Memory.objects.get(id=memory.id).body == "line one\nline two\n"


def test_verified_stamps_verified_at(operator, memory):
    edit(operator, memory, verified="on")
    saved = Memory.objects.get(id=memory.id)
    assert timezone.now() - saved.verified_at < dt.timedelta(minutes=1)
    assert saved.created_at == memory.created_at


def test_clearing_the_expiry_and_setting_one(operator, memory):
    edit(operator, memory, expires="2030-01-01")
    assert Memory.objects.get(id=memory.id).expires_at.year == 2030
    fresh = Memory.objects.get(id=memory.id)
    page = operator.get("/memories/note/?project=&edit=1")  # the form, drawn as asked for
    assert "2030-01-02T00:00:00Z" in page.content.decode()
    edit(operator, fresh, expires="")
    assert Memory.objects.get(id=memory.id).expires_at is None


def test_a_stale_body_conflict_is_shown_and_nothing_is_lost(operator, memory):
    doors.write("note", project=None, body="somebody else's body")
    response = edit(operator, memory, body="my careful edit")
    html = response.content.decode()
    assert response.status_code == 409
    assert "changed while you were editing it; nothing was saved" in html
    assert "my careful edit</textarea>" in html
    assert "somebody else&#x27;s body</pre>" in html
    assert "+my careful edit" in html  # the diff of theirs against mine
    assert Memory.objects.get(id=memory.id).body == "somebody else's body"
    # Saving again from the conflict page is deliberate: it replaces the current body.
    current = Memory.objects.get(id=memory.id)
    assert f'name="body_sha" value="{body_digest(current.body)}"' in html
    again = edit(operator, current, body="my careful edit")
    assert again.status_code == 302
    assert Memory.objects.get(id=memory.id).body == "my careful edit"


def test_a_body_left_alone_is_no_conflict(operator, memory):
    doors.write("note", project=None, body="theirs")
    edit(operator, memory, priority=9)
    saved = Memory.objects.get(id=memory.id)
    assert (saved.body, saved.priority) == ("theirs", 9)


def test_moving_to_another_tier(operator, memory):
    response = edit(operator, memory, project="webdev")
    assert response["Location"] == "/memories/note/?project=webdev"
    assert Memory.objects.get(id=memory.id).project.name == "webdev"
    messages = [html.unescape(str(m)) for m in get_messages(response.wsgi_request)]
    assert messages[0].startswith("Saved. Moved from the global tier to project 'webdev'. <form")


def test_an_edit_s_banner_undoes_it(operator, memory):
    edit(operator, memory, priority=9)
    page = operator.get("/memories/note/?project=").content.decode()
    restore = re.search(r'action="(/history/revisions/\d+/restore/)"', page).group(1)
    assert ">Undo</button>" in page
    response = operator.post(restore, {"then": "memory"})
    assert response["Location"] == "/memories/note/?project="
    assert Memory.objects.get(id=memory.id).priority == 3  # as before the edit


def test_a_budget_refusal_is_a_form_error_and_nothing_lands(operator, memory, small_budget):
    response = edit(operator, memory, load="inline", body="x" * 200)
    html = response.content.decode()
    assert response.status_code == 409
    assert "inline memories would total" in html and 'role="alert"' in html
    assert Memory.objects.get(id=memory.id).load == "index"
    assert "x" * 200 + "</textarea>" in html


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"expires": "next week"}, "is not an RFC 3339 timestamp"),
        ({"priority": "-1"}, "greater than or equal to 0"),
        ({"description": ""}, "This field is required"),
        ({"load": "sometimes"}, "Select a valid choice"),
        ({"project": "nowhere"}, "Select a valid choice"),
        ({"tags": "\n".join(f"t{n}" for n in range(60))}, "at most 50 tags"),
    ],
)
def test_bad_input_is_a_form_error(operator, memory, changes, message):
    response = edit(operator, memory, **changes)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Memory.objects.get(id=memory.id).description == "Deploy notes"


def test_saving_nothing_says_so(operator, memory):
    response = edit(operator, memory)
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["Nothing to save: no field was changed."]


def test_a_name_several_projects_hold_asks_which(auditor, project, other_project):
    doors.write("twin", project="webdev", description="web twin")
    doors.write("twin", project="infra", description="infra twin")
    response = auditor.get("/memories/twin/")
    html = response.content.decode()
    assert response.status_code == 409
    assert 'href="/memories/twin/?project=infra"' in html
    assert 'href="/memories/twin/?project=webdev"' in html
    assert auditor.get("/memories/twin/?project=infra").status_code == 200


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/memories/ghost/?project=", 404),
        ("/memories/note/?project=nowhere", 404),
        ("/memories/note/?project=bad%20name", 400),
    ],
)
def test_unknown_or_bad_addresses(auditor, memory, path, status):
    assert auditor.get(path).status_code == status


def test_the_page_runs_a_fixed_number_of_queries(
    auditor, operator, memory, django_assert_num_queries
):
    for number in range(10):
        doors.write(f"c{number}", description="cites", references=["note"])
    doors.write("note", project=None, references=[f"c{n}" for n in range(10)])
    # One of them the memories it supersedes; one the change feed's last id, which the
    # page's live stream starts after.
    with django_assert_num_queries(8):  # the edit form is folded, not drawn
        operator.get("/memories/note/?project=")
    with django_assert_num_queries(9):  # the edit form's tier choices are one of them
        operator.get("/memories/note/?project=&edit=1")
    with django_assert_num_queries(9):  # a project's memory: the tier is joined, not looked up
        operator.get("/memories/citer/?project=webdev&edit=1")
    with django_assert_num_queries(8):  # an auditor is shown no edit form
        auditor.get("/memories/note/?project=")


def test_the_edit_form_fragment_reads_the_memory_and_the_tiers(
    operator, memory, htmx, django_assert_num_queries
):
    with django_assert_num_queries(5):  # the session, its user, its role, the memory, tiers
        operator.get("/memories/note/?project=&edit=1", **htmx)


def test_the_body_toggle_reads_only_the_memory(operator, memory, htmx, django_assert_num_queries):
    with django_assert_num_queries(4):  # the session, its user, the user's role, the memory
        rendered = operator.get("/memories/note/?project=", **htmx).content.decode()
    with django_assert_num_queries(4):
        raw = operator.get("/memories/note/?project=&view=raw", **htmx).content.decode()
    assert chrome_free(rendered) and "<h1>Deploys</h1>" in rendered
    assert chrome_free(raw) and '<pre class="raw-body" id="raw-body">' in raw


def test_delete_names_the_memories_that_reference_it(operator, memory):
    doors.write("citer2", description="cites too", references=["note"])
    page = operator.get("/memories/note/delete/?project=").content.decode()
    assert "These memories reference it" in page and ">citer2</a>" in page
    response = operator.post("/memories/note/delete/?project=")
    assert response.status_code == 302 and response["Location"] == "/memories/?project="
    assert not Memory.objects.filter(name="note").exists()
    messages = [html.unescape(str(m)) for m in get_messages(response.wsgi_request)]
    assert messages[0].startswith(
        "Deleted 'note'. Still referencing it, as markers of a fact to revisit: 'citer2', 'citer'."
    )


def test_a_delete_lands_on_its_tier_and_its_banner_undoes_it(operator, memory):
    response = operator.post("/memories/citer/delete/?project=webdev", follow=True)
    assert response.redirect_chain[-1][0] == "/memories/?project=webdev"
    page = response.content.decode()
    entry = re.search(r'action="(/history/trash/\d+/restore/)"', page).group(1)
    assert 'class="flash flash-success"' in page and ">Undo</button>" in page
    undone = operator.post(entry, {"then": "memory"})
    assert undone["Location"] == "/memories/citer/?project=webdev"
    assert Memory.objects.filter(name="citer", project__name="webdev").exists()


def test_create_a_memory(operator, project):
    page = operator.get("/memories/_new/?project=webdev")
    assert '<option value="webdev" selected>' in page.content.decode()
    response = operator.post(
        "/memories/_new/",
        {
            "name": "fresh",
            "project": "webdev",
            "description": "A fresh   note\nover lines",
            "body": "one\r\ntwo",
            "tags": "a\r\nb",
            "priority": "4",
            "load": "index",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/memories/fresh/?project=webdev"
    fresh = Memory.objects.get(name="fresh")
    assert (fresh.description, fresh.body, fresh.tags) == (
        "A fresh note over lines",
        "one\ntwo",
        ["a", "b"],
    )


def test_create_refuses_a_name_the_tier_holds(operator, memory):
    response = operator.post(
        "/memories/_new/",
        {"name": "note", "project": "", "description": "dup", "priority": "5", "load": "index"},
    )
    assert response.status_code == 400
    # Form errors come escaped by the form renderer: read as text.
    assert "already holds a memory named 'note'" in html.unescape(response.content.decode())
    assert Memory.objects.get(name="note").description == "Deploy notes"


def test_create_refuses_a_bad_name(operator, db):
    response = operator.post(
        "/memories/_new/",
        {"name": "-bad", "project": "", "description": "d", "priority": "5", "load": "index"},
    )
    assert response.status_code == 400
    assert "starts with a letter or digit" in response.content.decode()


def test_a_name_or_description_too_long_is_refused_never_cut_short(operator, db):
    page = operator.get("/memories/_new/").content.decode()
    for name, limit in (("name", 128), ("description", 1000)):
        field = re.search(rf'<(?:input|textarea)[^>]*name="{name}"[^>]*>', page).group(0)
        assert "maxlength" not in field  # a browser would cut a paste short, silently
        assert f'data-max-chars="{limit}"' in field  # the page's counter
    data = {"project": "", "priority": "5", "load": "index", "description": "d" * 1022}
    response = operator.post("/memories/_new/", {**data, "name": "n" * 360})
    text = html.unescape(response.content.decode())
    assert response.status_code == 400
    assert "at most 128 characters (it has 360)" in text
    assert "at most 1000 characters (it has 1022)" in text
    assert not Memory.objects.exists()


def test_save_and_add_another_and_save_and_continue_editing(operator, project):
    data = {"project": "webdev", "description": "d", "priority": "5", "load": "index"}
    response = operator.post("/memories/_new/", {**data, "name": "one", "then": "another"})
    assert response["Location"] == "/memories/_new/?project=webdev"
    one = doors.write("two", project=None, description="global two").memory
    response = edit(operator, one, priority=7, then="continue")
    assert response["Location"] == "/memories/two/?project=&edit=1#edit-form"
    assert Memory.objects.get(name="two").priority == 7


def test_an_expiry_already_past_is_saved_only_once_confirmed(operator, db):
    data = {"name": "old", "project": "", "description": "d", "priority": "5", "load": "index"}
    response = operator.post("/memories/_new/", {**data, "expires": "2020-01-01"})
    text = html.unescape(response.content.decode())
    assert response.status_code == 400
    assert "2020-01-01 has passed: the memory would be saved already expired." in text
    assert 'name="expired_ok"' in text
    assert not Memory.objects.exists()
    confirmed = {**data, "expires": "2020-01-01", "expired_ok": "on"}
    assert operator.post("/memories/_new/", confirmed).status_code == 302
    assert Memory.objects.get(name="old").expires_at.year == 2020
    # An edit that leaves the past expiry as it was is not asked again.
    page = operator.get("/memories/old/?project=&edit=1").content.decode()
    assert 'name="expired_ok"' not in page


def test_a_note_recorded_today_says_so(auditor, db):
    doors.write("fresh", description="written just now")
    html = auditor.get("/memories/fresh/?project=").content.decode()
    assert "Recorded today, not verified since." in html
    assert "Saved today" not in html


def test_the_header_and_the_fields_agree_on_verification(auditor, db):
    never = backdate(doors.write("never", description="never checked").memory, days=31)
    html = auditor.get(never.get_absolute_url()).content.decode()
    assert "Recorded 31 days ago, not verified since." in html
    assert '<dt>Verified</dt><dd><span class="muted">not since recorded</span></dd>' in html
    checked = backdate(
        doors.write("checked", description="checked").memory, days=31, verified_days=3
    )
    html = auditor.get(checked.get_absolute_url()).content.decode()
    assert "Recorded 31 days ago, verified 3 days ago." in html
    assert re.search(r"<dt>Verified</dt><dd><time [^>]+>3 days ago</time></dd>", html)


def test_the_edit_form_is_folded_until_asked_for(operator, auditor, memory, htmx):
    html = operator.get("/memories/note/?project=").content.decode()
    # Folded and not drawn: unfolding it loads the form in its place (htmx), or, without
    # script, the link inside opens the page with the form.
    assert (
        '<details class="panel edit-panel" id="edit" hx-get="/memories/note/?project=&amp;edit=1"'
        ' hx-trigger="toggle once" hx-swap="outerHTML">' in html
    )
    assert 'href="/memories/note/?project=&amp;edit=1#edit-form">Open the edit form</a>' in html
    assert 'href="/memories/note/?project=&amp;edit=1#edit-form">Edit</a>' in html
    assert 'id="edit-form"' not in html and 'name="priority"' not in html
    # The backlink graph loads in place once in view, right under the body, above the form.
    assert 'hx-trigger="intersect once"' in html
    assert html.index('id="memory-graph"') < html.index('id="edit"')
    # Asked for: the page with the form open, which the Edit tab then points into.
    asked = operator.get("/memories/note/?project=&edit=1").content.decode()
    assert '<details class="panel edit-panel" id="edit" open>' in asked
    assert 'href="#edit-form">Edit</a>' in asked and 'id="edit-form"' in asked
    assert "One per line." in asked and "One a line" not in asked
    assert f'name="body_sha" value="{body_digest(memory.body)}"' in asked
    # The fragment htmx swaps in: the open panel and its form alone, with a CSRF token.
    response = operator.get("/memories/note/?project=&edit=1", **htmx)
    fragment = response.content.decode()
    assert chrome_free(fragment) and "HX-Request" in response["Vary"]
    assert fragment.strip().startswith('<details class="panel edit-panel" id="edit" open>')
    assert 'name="csrfmiddlewaretoken"' in fragment and 'name="priority" value="3"' in fragment
    assert 'id="body"' not in fragment and "Referenced by" not in fragment
    # A refused save opens it again, with what went wrong.
    refused = edit(operator, memory, priority="101").content.decode()
    assert '<details class="panel edit-panel" id="edit" open>' in refused
    assert "Edit</a>" not in auditor.get("/memories/note/?project=").content.decode()


@pytest.mark.parametrize("fragment", [False, True])
def test_an_auditor_asking_for_the_edit_form_is_refused(auditor, memory, htmx, fragment):
    response = auditor.get("/memories/note/?project=&edit=1", **(htmx if fragment else {}))
    assert response.status_code == 403
    assert "Only operators and admins may change memories" in response.content.decode()
    assert 'name="priority"' not in response.content.decode()


def test_a_web_reference_is_a_link_and_another_tier_is_named(auditor, memory):
    doors.write("note", project=None, references=["deploy-host", "https://example.com/run?a=1&b=2"])
    html = auditor.get("/memories/note/?project=").content.decode()
    assert (
        '<a class="mono" href="https://example.com/run?a=1&amp;b=2" rel="noopener noreferrer '
        'nofollow">https://example.com/run?a=1&amp;b=2</a> <span class="badge badge-dangling"'
    ) in html
    # The citer is webdev's: its tier is named beside it; the global memory cited is not.
    assert (
        '<a class="mono" href="/memories/citer/?project=webdev">citer</a> '
        '<span class="badge">webdev</span> <span class="ref-description">cites the note</span>'
    ) in html
    assert '">deploy-host</a> <span class="ref-description">Where deploys go</span>' in html


# The page's content is drawn once for what it shows (detail.content_key): each change to what
# it shows, through the doors or past them, must show on the next request.


def _page(client, name="note", project="") -> str:
    return client.get(f"/memories/{name}/?project={project}").content.decode()


@pytest.mark.parametrize(
    "changes, shown",
    [
        ({"description": "Rollout notes"}, "Rollout notes"),
        ({"tags": ["ops", "security"]}, ">security</a>"),
        ({"priority": 8}, "priority 8"),
        ({"load": "inline"}, "load-inline"),
        ({"source": "the wiki"}, "the wiki"),
        ({"body": "Now through *bastion-3*."}, "<em>bastion-3</em>"),
        ({"references": ["elsewhere.md"]}, "elsewhere.md"),
        ({"expires": "2001-01-01"}, "badge-expired"),
        ({"verified": True}, "verified today"),
    ],
)
def test_the_page_drawn_again_shows_each_change(auditor, memory, changes, shown):
    assert shown not in _page(auditor)
    doors.write("note", **changes)
    assert shown in _page(auditor)


def test_the_page_drawn_again_shows_a_change_made_past_the_doors(auditor, memory):
    assert "priority 3" in _page(auditor)
    Memory.objects.filter(id=memory.id).update(priority=1, read_count=4)
    html = _page(auditor)
    assert "priority 1" in html and "4 times by the agent" in html


def test_the_page_drawn_again_shows_the_memories_it_links_as_they_are(auditor, memory):
    _page(auditor)
    doors.write("deploy-host", description="Where rollouts go")
    doors.write("citer", project="webdev", description="still cites the note")
    doors.write("late-citer", description="cites it too", references=["note"])
    html = _page(auditor)
    assert "Where rollouts go" in html and "still cites the note" in html
    assert 'href="/memories/late-citer/?project="' in html
    projects.rename("webdev", "frontend")
    assert 'href="/memories/citer/?project=frontend"' in _page(auditor)


def test_the_edit_controls_follow_the_role_of_who_asks(auditor, operator, memory):
    assert "Open the edit form" not in _page(auditor)
    assert "Open the edit form" in _page(operator)
    assert "Open the edit form" not in _page(auditor)


def test_the_drawing_is_kept_for_a_day_of_ages_and_no_longer(memory):
    """The ages are told in days: a later moment of the same day draws the same page, the
    next day another; so does an expiry passing, and the Raw toggle."""
    morning = dt.datetime(2026, 6, 1, 8, 0, tzinfo=dt.UTC)
    context = {
        "memory": memory,
        "references": backlinks.resolve_references(memory),
        "referenced_by": backlinks.referenced_by(memory),
        "replaces": [],
        "expired": False,
        "raw": False,
    }

    def key(moment, **changes):
        return content_key({**context, "now": moment, **changes}, can_write=False)

    assert key(morning) == key(morning + dt.timedelta(hours=15))
    assert key(morning) != key(morning + dt.timedelta(days=1))
    assert key(morning) != key(morning, expired=True)
    assert key(morning) != key(morning, raw=True)
    assert key(morning) != content_key({**context, "now": morning}, can_write=True)


def test_a_budget_refusal_on_the_form_reads_as_the_rows_one(operator, db, settings):
    doors.write("big", description="big", load="inline", body="b" * 120)
    settings.MEMADMIN_INLINE_MAX_BYTES = 100  # lowered beneath what the store holds
    response = operator.post(
        "/memories/_new/",
        {"name": "small", "project": "", "description": "d", "body": "0123456789"}
        | {"priority": "5", "load": "inline"},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "<code>MEMADMIN_INLINE_MAX_BYTES</code>" in page and "`" not in page.split("<form")[1]
    assert "already over the budget; this change adds 10 bytes)" in page
    assert '<a class="refusal-link" href="/budget/">See the global band’s budget</a>' in page
