"""The insight pages: graph, budget report, hygiene and side by side, with the role matrix,
fragments for htmx, refusals, and the writes (verify, set load, set priority) through the
doors."""

import re

import pytest
from django.utils import timezone

from memadmin.pages.insights import views
from memories.models import Memory
from memories.reads import band_cut, drift
from tests.conftest import backdate
from tests.pages.conftest import chrome_free


@pytest.fixture
def store(write, project, settings):
    write("deploy-host", load="inline", body="h" * 80, priority=1)
    write("runbook", references=["deploy-host", "https://wiki.example.com/x", "write-me"])
    write("stack", project="webdev", references=["deploy-host"], tags=["infra"])
    backdate(write("old", description="Alice works in Berlin", priority=1).memory, days=200)
    write("old-copy", project="webdev", description="Alice works in Berlin")
    hot = write("hot", priority=15).memory
    Memory.objects.filter(id=hot.id).update(read_count=30)
    # The budget lowered beneath what the store holds, so the cut line shows.
    settings.MEMADMIN_INLINE_MAX_BYTES = 64


def ids(*names) -> list[str]:
    return [str(Memory.objects.get(name=name).id) for name in names]


PAGES = [
    "/graph/",
    "/graph/?view=table",
    "/graph/data/",
    "/graph/around/runbook/?project=",
    "/graph/around/runbook/data/?project=",
    "/budget/",
    "/budget/?project=webdev",
    "/hygiene/",
    "/hygiene/dangling/",
    "/hygiene/orphans/",
    "/hygiene/shadows/",
    "/hygiene/unverified/",
    "/hygiene/duplicates/",
    "/hygiene/compare/?id={old}&id={old-copy}",
]
WRITES = ["/budget/set-load/", "/budget/set-priority/", "/hygiene/verify/"]


def _path(path: str) -> str:
    return re.sub(r"\{([\w-]+)\}", lambda m: ids(m.group(1))[0], path)


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_is_sent_to_sign_in(client, store, path):
    response = client.get(_path(path))
    assert response.status_code == 302 and response["Location"].startswith("/sign-in/?next=")


@pytest.mark.parametrize("path", PAGES)
def test_a_user_without_a_role_is_refused(roleless, store, path):
    assert roleless.get(_path(path)).status_code == 403


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("who", ["auditor", "operator"])
def test_every_role_reads_every_page(request, store, path, who):
    response = request.getfixturevalue(who).get(_path(path))
    assert response.status_code == 200
    if "/data/" in path:
        assert response["Content-Type"] == "application/json"
    else:
        html = response.content.decode()
        # The CSP forbids inline script and style: every script is a file, no style attribute.
        assert not re.search(r"<script(?![^>]*\bsrc=)", html)
        assert " style=" not in html


@pytest.mark.parametrize("path", WRITES)
def test_an_auditor_is_refused_every_write(auditor, store, path):
    before = list(Memory.objects.order_by("id").values_list("load", "priority", "verified_at"))
    response = auditor.post(path, {"id": ids("deploy-host", "old")})
    assert response.status_code == 403
    assert "Only operators and admins" in response.content.decode()
    after = list(Memory.objects.order_by("id").values_list("load", "priority", "verified_at"))
    assert after == before


@pytest.mark.parametrize("path", WRITES)
def test_anonymous_writes_are_sent_to_sign_in(client, store, path):
    response = client.post(path, {"id": ids("old")})
    assert response.status_code == 302 and "/sign-in/" in response["Location"]


def test_an_auditor_sees_no_edit_controls(auditor, store):
    budget = auditor.get("/budget/").content.decode()
    assert "Set load: index" not in budget and "Set priority" not in budget
    queue = auditor.get("/hygiene/unverified/").content.decode()
    assert "/hygiene/verify/" not in queue and "data-select-all" not in queue
    dangling = auditor.get("/hygiene/dangling/").content.decode()
    assert "write it" not in dangling


def test_an_operator_sets_load_index_from_the_budget_report(operator, store):
    page = operator.get("/budget/").content.decode()
    assert "Set load: index" in page and "named, not given" in page
    response = operator.post(
        "/budget/set-load/", {"id": ids("deploy-host"), "next": "/budget/?project=webdev"}
    )
    assert response.status_code == 302 and response["Location"] == "/budget/?project=webdev"
    assert Memory.objects.get(name="deploy-host").load == "index"
    assert "Set load: index on 1 memory" in operator.get("/budget/").content.decode()


def test_an_operator_takes_a_drift_suggestion(operator, store):
    page = operator.get("/budget/").content.decode()
    assert "priority 15 but read 30 times" in page
    operator.post("/budget/set-priority/", {"id": ids("hot")})
    assert Memory.objects.get(name="hot").priority == 5


def test_verify_one_and_in_bulk(operator, store):
    page = operator.get("/hygiene/unverified/").content.decode()
    assert 'form="verify-one" name="id"' in page and 'form="bulk"' in page
    before = timezone.now()
    response = operator.post("/hygiene/verify/", {"id": ids("old"), "next": "/hygiene/"})
    assert response.status_code == 302 and response["Location"] == "/hygiene/"
    assert Memory.objects.get(name="old").verified_at >= before
    backdate(Memory.objects.get(name="old"), days=300)
    backdate(Memory.objects.get(name="runbook"), days=300)
    operator.post("/hygiene/verify/", {"id": ids("old", "runbook")})
    assert all(m.verified_at >= before for m in Memory.objects.filter(name__in=["old", "runbook"]))
    assert "Marked 2 memories verified." in operator.get("/hygiene/").content.decode()


def test_verify_reports_memories_gone_meanwhile(operator, store):
    operator.post("/hygiene/verify/", {"id": ["999999"]})
    assert "1 of the chosen memory no longer exists." in operator.get("/hygiene/").content.decode()


@pytest.mark.parametrize("path", WRITES)
def test_writes_without_a_choice_are_refused(operator, store, path):
    response = operator.post(path, {"id": ["x"]})
    assert response.status_code == 400
    assert operator.post(path, {}).status_code == 400


@pytest.mark.parametrize(
    ("path", "fragment_marker"),
    [
        ("/graph/", "data-graph-url"),
        ("/graph/?view=table", "graph-table"),
        ("/graph/around/runbook/?project=", "data-graph-url"),
        ("/budget/?project=webdev", "cut-heading"),
        ("/hygiene/", "dangling-heading"),
        ("/hygiene/dangling/", "write-me"),
    ],
)
def test_htmx_gets_the_fragment_without_chrome(auditor, store, htmx, path, fragment_marker):
    response = auditor.get(path, **htmx)
    html = response.content.decode()
    assert response.status_code == 200 and fragment_marker in html
    assert chrome_free(html) and "HX-Request" in response["Vary"]


def test_graph_page_and_table(auditor, store):
    page = auditor.get("/graph/?project=webdev&tag=").content.decode()
    assert 'data-graph-url="/graph/data/?project=webdev"' in page
    # The script opens a memory at the page its node carries, not one it builds.
    assert "data-memory-url" not in page
    nodes = auditor.get("/graph/data/?project=webdev").json()["nodes"]
    assert {n["url"] for n in nodes if n["kind"] == "memory"} == {
        "/memories/stack/?project=webdev",
        "/memories/deploy-host/?project=",
    }
    table = auditor.get("/graph/?view=table").content.decode()
    assert "write-me" in table and "dangling name" in table and "cross-tier" in table
    assert "5 nodes and 4 references" in table


def test_graph_refusals(auditor, store):
    bad = auditor.get("/graph/?limit=0")
    assert bad.status_code == 400 and "limit" in bad.content.decode()
    assert auditor.get("/graph/?view=table&project=nope").status_code == 404
    data = auditor.get("/graph/data/?project=nope")
    assert data.status_code == 404 and data.json() == {"error": "There is no project named 'nope'."}
    assert auditor.get("/graph/data/?expired=maybe").status_code == 400
    assert auditor.get("/graph/around/nope/").status_code == 404
    assert auditor.get("/graph/around/runbook/?depth=9").status_code == 400
    assert auditor.get("/graph/around/nope/data/").json()["error"].startswith("There is no")


def test_the_graph_form_shows_the_cap_the_address_asks_for(auditor, store):
    page = auditor.get("/graph/?limit=60").content.decode()
    assert '<option value="60" selected>60 nodes</option>' in page
    assert '<option value="300">300 nodes</option>' in page
    default = auditor.get("/graph/").content.decode()
    assert '<option value="1500" selected>1500 nodes</option>' in default
    assert 'value="60"' not in default


def test_graph_data_is_the_selectors(auditor, store):
    data = auditor.get("/graph/data/?limit=3").json()
    assert data["shown_nodes"] == 3 and data["capped"] and data["total_nodes"] == 5
    around = auditor.get("/graph/around/deploy-host/data/?project=&depth=2").json()
    assert {n["label"] for n in around["nodes"] if n["depth"] == 2} == {
        "https://wiki.example.com/x",
        "write-me",
    }


def test_the_memory_page_loads_its_graph_in_place(auditor, store):
    page = auditor.get("/memories/runbook/?project=").content.decode()
    assert (
        'hx-get="/graph/around/runbook/?project="' in page and 'hx-trigger="intersect once"' in page
    )
    around = auditor.get("/graph/around/runbook/?project=&depth=2").content.decode()
    assert 'aria-current="true">2 hops' in around


def test_budget_report(auditor, store):
    page = auditor.get("/budget/").content.decode()
    assert "<svg" in page and "Inline bytes of each band against the inline budget" in page
    assert "over the budget" in page
    assert "needs 80 bytes and 64 bytes of the budget was left" in page
    assert "Priorities of the global tier" in page and "Important but never read" in page
    assert auditor.get("/budget/?project=nope").status_code == 404
    assert auditor.get("/budget/?project=bad%20name").status_code == 400


def test_the_budget_page_bounds_its_counts_and_its_cut_table(
    auditor, store, write, monkeypatch, settings
):
    settings.MEMADMIN_INLINE_MAX_BYTES = 32768
    for number in range(3):
        write(f"rule-{number}", load="inline", body="r" * 30, priority=2)
        backdate(write(f"unread-{number}", priority=0).memory, days=90)
    settings.MEMADMIN_INLINE_MAX_BYTES = 140  # deploy-host (80), rule-2 and rule-1 fit
    monkeypatch.setattr(drift, "COUNT_BOUND", 2)
    monkeypatch.setattr(views, "MISMATCHES_SHOWN", 1)
    monkeypatch.setattr(band_cut, "CUT_SHOWN", 2)
    page = auditor.get("/budget/").content.decode()
    assert 'Important but never read <span class="muted">(2+)</span>' in page
    assert "The first 1 of 2+." in page
    assert "2 more inline bodies in force after these, 1 of them given in full (60 bytes)." in page


def test_the_cut_line_says_given_once(auditor, store, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 32768
    page = auditor.get("/budget/").content.decode()
    assert "given in full: 80 bytes of the 32.0 KiB budget spent with it" in page
    assert "given given" not in re.sub(r"<[^>]+>|\s+", " ", page).replace("  ", " ")


def test_the_histograms_are_drawn_at_their_shown_size(auditor, store):
    page = auditor.get("/budget/").content.decode()
    # Shown a third of the page wide (about 340 px): a wider picture shrinks its text.
    assert re.search(r'class="chart chart-histogram" viewBox="0 0 340 150"', page)


def test_hygiene_lists_and_their_fixes(operator, store, write):
    dangling = operator.get("/hygiene/dangling/").content.decode()
    assert "/memories/_new/?name=write-me" in dangling
    assert "/memories/?referencing=https%3A%2F%2Fwiki.example.com%2Fx" in dangling
    # Each citer a link to its edit form, its project beside it, in index order.
    write("a-citer", project="webdev", references=["write-me"], priority=0)
    dangling = operator.get("/hygiene/dangling/").content.decode()
    assert (
        '<a class="mono" href="/memories/a-citer/?project=webdev#edit">a-citer</a>'
        ' <span class="muted">webdev</span>, '
        '<a class="mono" href="/memories/runbook/?project=#edit">runbook</a></td>'
    ) in dangling
    shadows = operator.get("/hygiene/shadows/").content.decode()
    old, copy = ids("old", "old-copy")
    assert f"/hygiene/compare/?id={copy}&amp;id={old}" in shadows
    duplicates = operator.get("/hygiene/duplicates/").content.decode()
    assert "the same words" in duplicates
    paged = operator.get("/hygiene/dangling/?limit=1").content.decode()
    assert "2 targets; 1–1 here." in paged and "offset=1" in paged
    assert operator.get("/hygiene/everything/").status_code == 404
    assert operator.get("/hygiene/?unverified=soon").status_code == 400
    assert operator.get("/hygiene/?project=nope").status_code == 404


def test_a_scope_beyond_a_tier_says_where_its_counts_stop(operator, tagged_ops):
    report = operator.get("/hygiene/?tag=ops").content.decode()
    assert '<p class="section-count">3+</p>' in report
    assert "Counted in the newest 2 memories of the scope." in report
    dangling = operator.get("/hygiene/dangling/?tag=ops").content.decode()
    assert "Counted in the newest 2 memories of the scope." in dangling
    # Its citers counted in part, the list page's link counts none.
    assert "list every memory citing it" in dangling and "list all 1 citing it" not in dangling
    orphans = operator.get("/hygiene/orphans/?tag=ops&limit=2").content.decode()
    assert "3+ memories; 1–2 here." in orphans and "offset=2" in orphans
    # The whole store is counted off the tallies, exactly.
    assert '<p class="section-count">5</p>' in operator.get("/hygiene/").content.decode()


def test_compare_side_by_side(auditor, store, write):
    write("zone", description="Alice works in Bern")
    first, second = ids("old", "zone")
    page = auditor.get(f"/hygiene/compare/?id={first}&id={second}").content.decode()
    assert page.index(">old<") < page.index(">zone<")
    assert '<mark class="changed">Bern</mark>' in page
    assert auditor.get("/hygiene/compare/").status_code == 400
    assert auditor.get("/hygiene/compare/?id=999999").status_code == 404


def test_writing_a_dangling_name_starts_from_it(operator, store):
    page = operator.get("/memories/_new/?name=write-me").content.decode()
    assert 'value="write-me"' in page


def test_budget_page_queries_do_not_grow_with_the_store(
    auditor, store, write, django_assert_max_num_queries
):
    with django_assert_max_num_queries(80) as captured:
        auditor.get("/budget/")
    first = len(captured)
    for number in range(40):
        write(f"more-{number}", priority=number % 4, load="inline" if number % 5 else "index")
    with django_assert_max_num_queries(first):
        auditor.get("/budget/")


def test_the_budget_page_rows_mark_the_cut_the_global_bodies_and_the_session(
    operator, store, write, settings
):
    settings.MEMADMIN_INLINE_MAX_BYTES = 1024
    write("short", project="webdev", load="inline", body="s" * 10)
    settings.MEMADMIN_INLINE_MAX_BYTES = 64
    page = operator.get("/budget/?project=webdev").content.decode()
    cut = re.findall(
        r'<tr class="([^"]*)">\s*<th scope="row"><a class="mono" href="([^"]+)">([^<]+)</a>'
        r'(.*?)</th>\s*<td class="num">([\d,]+)</td>\s*<td>(.*?)</td>',
        page,
    )
    assert [(classes, name, mark, size) for classes, _, name, mark, size, _ in cut] == [
        ("not-given cut-line", "deploy-host", ' <span class="muted">global</span>', "80"),
        ("", "short", "", "10"),
    ]
    host = Memory.objects.get(name="deploy-host")
    assert cut[0][1] == host.get_absolute_url()
    assert cut[0][5].startswith('<strong class="over">named, not given')
    assert cut[1][5].startswith("given in full")
    assert (
        '<a href="/budget/?project=webdev" hx-get="/budget/?project=webdev" hx-target="#band" '
        'hx-push-url="true" aria-current="page">webdev</a>'
    ) in page
    assert re.search(
        r'<tr class="not-given">\s*<th scope="row"><a href="/budget/\?project=webdev">webdev</a> '
        r'<strong class="over">over</strong></th>',
        page,
    )
    one_click = (
        r'<form class="one-click" method="post" action="{action}">'
        r'<input type="hidden" name="csrfmiddlewaretoken" value="\w+">'
        r'<input type="hidden" name="id" value="{id}">'
        r'<input type="hidden" name="next" value="/budget/\?project=webdev">'
        r'<button type="submit" class="button" aria-label="{label}">{button}</button></form>'
    )
    assert re.search(
        one_click.format(
            action="/budget/set-load/",
            id=host.id,
            label="Set load: index on deploy-host",
            button="Set load: index",
        ),
        page,
    )
    priority = drift.SUGGESTED_PRIORITY
    assert re.search(
        one_click.format(
            action="/budget/set-priority/",
            id=Memory.objects.get(name="hot").id,
            label=f"Set priority {priority} on hot",
            button=f"Set priority {priority}",
        ),
        page,
    )


def test_compare_marks_the_fields_that_differ_not_only_the_words(auditor, write):
    first = write("rule-13", description="Retry 13 times", priority=13, tags=["ops"]).memory
    second = write("rule-15", description="Retry 15 times", priority=15, tags=["ops"]).memory
    page = auditor.get(f"/hygiene/compare/?id={first.id}&id={second.id}").content.decode()
    assert '<mark class="changed">priority 13</mark>' in page
    assert '<mark class="changed">priority 15</mark>' in page
    assert '<mark class="changed">ops</mark>' not in page  # the same tags, unmarked
    third = write("rule-16", description="Retry 16 times", priority=13, tags=["db"]).memory
    page = auditor.get(f"/hygiene/compare/?id={first.id}&id={third.id}").content.decode()
    assert "priority 13</mark>" not in page
    assert '<mark class="changed">db</mark>' in page
