"""Listing in index order, the filters, backlinks, resolution and dangling references."""

import datetime as dt

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memories.models import Memory
from memories.reads import backlinks, listing, lookup
from memories.reads.filters import MemoryFilterForm, MemoryFilters
from memories.reads.listing import list_memories
from memories.rules.errors import MemoryNotFound, UnknownProject
from memories.rules.tiers import ANY_TIER
from tests.conftest import backdate, restore


def names(page):
    return [m.name for m in page.memories]


def test_index_order_is_priority_then_most_recently_created(write):
    backdate(write("old-rule", priority=1).memory, days=100)
    backdate(write("new-rule", priority=1).memory, days=1)
    write("note", priority=5)
    write("top", priority=0)
    page = listing.list_memories(MemoryFilters())
    assert names(page) == ["top", "new-rule", "old-rule", "note"]
    assert page.count == 4


def test_limit_offset_and_count(write):
    for number in range(7):
        write(f"m{number}", priority=number)
    page = listing.list_memories(MemoryFilters(), limit=3, offset=2)
    assert names(page) == ["m2", "m3", "m4"] and page.count == 7


def test_tier_filters(write, project):
    write("g")
    write("w", project="webdev")
    assert names(listing.list_memories(MemoryFilters(project=None))) == ["g"]
    assert names(listing.list_memories(MemoryFilters(project="webdev"))) == ["w"]
    assert sorted(names(listing.list_memories(MemoryFilters(project=ANY_TIER)))) == ["g", "w"]
    with pytest.raises(UnknownProject):
        listing.list_memories(MemoryFilters(project="nope"))


def test_a_sessions_band_is_the_global_tier_and_its_projects(write, project, other_project):
    write("g")
    write("w", project="webdev")
    write("i", project="infra")
    band = MemoryFilters(band="webdev")
    assert sorted(names(listing.list_memories(band))) == ["g", "w"]
    assert names(listing.list_memories(MemoryFilters(band=None))) == ["g"]
    assert band.active and not MemoryFilters().active
    assert band.summary(2) == "2 memories, most important first"  # the session's own scope
    with pytest.raises(UnknownProject):
        listing.list_memories(MemoryFilters(band="nope"))


def test_a_name_is_located_in_a_sessions_band(write, project, other_project):
    write("notes", project="webdev")
    write("rules")
    write("stack", project="infra")
    assert lookup.locate_in_band("notes", "webdev").project_name == "webdev"
    assert lookup.locate_in_band("rules", "webdev").project_id is None
    assert lookup.locate_in_band("rules", None).project_id is None
    with pytest.raises(MemoryNotFound, match="in project 'webdev' or the global tier"):
        lookup.locate_in_band("stack", "webdev")
    with pytest.raises(MemoryNotFound, match="named 'notes' in the global tier.$"):
        lookup.locate_in_band("notes", None)
    with pytest.raises(UnknownProject):
        lookup.locate_in_band("notes", "nowhere")


def test_expired_unverified_referencing_tag_load_filters(write):
    past = (timezone.now() - dt.timedelta(hours=1)).isoformat()
    write("expired", expires=past, tags=["ops"])
    write("fresh", references=["deploy-host", "https://wiki.example.com/x"], load="inline")
    backdate(write("stale", tags=["ops"]).memory, days=100)
    backdate(write("checked", references=["deploy-host"]).memory, days=100, verified_days=3)
    listing = list_memories
    assert names(listing(MemoryFilters(expired=True))) == ["expired"]
    assert "expired" not in names(listing(MemoryFilters(expired=False)))
    assert names(listing(MemoryFilters(unverified="90d"))) == ["stale"]
    assert sorted(names(listing(MemoryFilters(referencing="deploy-host")))) == ["checked", "fresh"]
    assert names(listing(MemoryFilters(referencing="https://wiki.example.com/x"))) == ["fresh"]
    assert sorted(names(listing(MemoryFilters(tag="ops")))) == ["expired", "stale"]
    assert names(listing(MemoryFilters(load="inline"))) == ["fresh"]
    assert names(listing(MemoryFilters(tag="ops", unverified="2w"))) == ["stale"]


def test_filter_form_reads_the_api_parameters():
    form = MemoryFilterForm(
        QueryDict("project=&expired=true&unverified=90d&referencing=x&tag=t&load=index&q=a&q=b")
    )
    assert form.is_valid(), form.errors
    filters = form.filters()
    assert filters.project is None and filters.expired is True
    assert (filters.unverified, filters.referencing, filters.tag) == ("90d", "x", "t")
    assert form.cleaned_data["q"] == ["a", "b"]
    assert MemoryFilterForm(QueryDict("")).is_valid()
    empty = MemoryFilterForm(QueryDict(""))
    assert empty.is_valid() and empty.filters().project is ANY_TIER


@pytest.mark.parametrize(
    "query",
    [
        "expired=perhaps",
        "unverified=soon",
        "unverified=0d",
        "load=always",
        "project=../x",
        "limit=0",
        "offset=-1",
    ],
)
def test_filter_form_refuses_bad_values_with_a_sentence(query):
    form = MemoryFilterForm(QueryDict(query))
    assert not form.is_valid()
    assert form.first_error()


def test_summary_in_words(project):
    filters = MemoryFilters(project="webdev", unverified="90d")
    assert filters.summary(12, searched=True) == "12 memories in webdev, unverified for 90 days"
    assert MemoryFilters(referencing="deploy-host").summary(3) == (
        "3 memories referencing ‘deploy-host’, most important first"
    )


def test_locate_in_a_project_is_one_query_and_tells_its_refusals_apart(
    write, project, django_assert_num_queries
):
    write("notes", project="webdev")
    write("rules", project=None)
    with django_assert_num_queries(1):
        found = lookup.locate("notes", "webdev")
    assert found.project_name == "webdev"
    assert lookup.locate("rules", None).project_id is None
    with pytest.raises(MemoryNotFound):
        lookup.locate("rules", "webdev")
    with pytest.raises(MemoryNotFound):
        lookup.locate("missing", "webdev")
    with pytest.raises(UnknownProject):
        lookup.locate("notes", "nowhere")


def test_backlinks_are_seen_from_the_citing_band(write, project, other_project):
    write("notes", project="webdev")
    write("notes", project="infra")
    write("global-cite", references=["notes"])
    write("web-cite", project="webdev", references=["notes"])
    write("infra-cite", project="infra", references=["notes"])
    webdev_notes = lookup.locate("notes", "webdev")
    assert sorted(m.name for m in backlinks.referenced_by(webdev_notes)) == [
        "global-cite",
        "web-cite",
    ]
    assert backlinks.backlink_dicts(webdev_notes)[0].keys() == {"name", "project", "description"}


def test_references_resolve_in_band_and_dangling_ones_are_found(write, project):
    write("deploy-host", description="Where deploys go")
    write("stack", project="webdev", description="pnpm")
    cite = write("runbook", project="webdev", references=["deploy-host", "stack", "/etc/x"]).memory
    resolved = backlinks.resolve_references(cite)
    assert [(r.target, r.memory.description if r.memory else None) for r in resolved] == [
        ("deploy-host", "Where deploys go"),
        ("stack", "pnpm"),
        ("/etc/x", None),
    ]
    assert [ref.target for ref in backlinks.dangling_references()] == ["/etc/x"]


def test_listing_runs_a_fixed_number_of_queries(write, project, django_assert_num_queries):
    for number in range(30):
        write(f"m{number}", project="webdev" if number % 2 else None)
    with django_assert_num_queries(2):
        page = listing.list_memories(MemoryFilters(), limit=50)
        [m.project_name for m in page.memories]


def _page_statement(filters) -> tuple[str, str]:
    """The statement that reads a page's rows, and its plan."""
    with CaptureQueriesContext(connection) as captured:
        listing.page_memories(filters, limit=10)
    (rows,) = [q["sql"] for q in captured.captured_queries if "LIMIT 11" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + rows)
        return rows, " ".join(row[3] for row in cursor.fetchall())


@pytest.mark.engine("sqlite")  # the plan as SQLite's EXPLAIN QUERY PLAN words it
@pytest.mark.parametrize("dense", [True, False])
def test_a_date_range_admitting_most_memories_walks_the_index_order(db, monkeypatch, dense):
    """When most memories are unverified the page walks the index order and stops after a
    page; when few are, it is declared so and they are read by date and sorted."""
    monkeypatch.setattr(listing, "WALK_AFTER", 100)
    now = timezone.now()
    restore(*({"name": f"m{number:03d}", "priority": number % 10} for number in range(300)))
    old = Memory.objects.all() if dense else Memory.objects.filter(name__in=["m001", "m002"])
    old.update(verified_at=now - dt.timedelta(days=400))
    filters = MemoryFilters(unverified="90d")
    sql, plan = _page_statement(filters)
    if dense:
        assert "memory_index_order" in plan and "memory_verified" not in plan, plan
    else:
        assert "likelihood(" in sql and "memory_verified" in plan, plan
    listed = [m.name for m in listing.page_memories(filters, limit=10).memories]
    expected = old.order_by("priority", "-created_at", "-id").values_list("name", flat=True)
    assert listed == list(expected[:10])


def test_citers_and_cited_are_read_without_their_bodies(write, project, django_assert_num_queries):
    cited = write("cited", project="webdev", body="the cited body").memory
    for number in range(3):
        write(f"citer-{number}", project="webdev", body="x" * 500, references=["cited"])
    citer = Memory.objects.get(name="citer-0")
    with CaptureQueriesContext(connection) as queries:
        citing = backlinks.referenced_by(cited)
        resolved = backlinks.resolve_references(citer)
    assert all('"body"' not in query["sql"] for query in queries.captured_queries)
    with django_assert_num_queries(0):  # what the pages, /v1, MCP and the CLI show of them
        shown = [(m.name, m.project_name, m.description, m.get_absolute_url()) for m in citing]
        shown += [(r.memory.name, r.memory.project_name, r.memory.tier) for r in resolved]
    assert [name for name, *_ in shown] == ["citer-2", "citer-1", "citer-0", "cited"]
