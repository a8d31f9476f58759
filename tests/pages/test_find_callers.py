"""Every way of finding memories asks the one find read (memories.reads.find): the list page,
its CSV and JSON, the bulk action's "every memory matching", /v1/memories, MCP's
memory_search and `memory search`/`memory list` answer a hybrid search with the same rows in
the same order, and a filter added as one object (read=never) reaches every one of them."""

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.utils import timezone

from memadmin.accounts import tokens
from memadmin.api.openapi import document
from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memadmin.pages.memories import listing
from memadmin.pages.memories.forms import MemoryListForm
from memories.models import Memory
from memories.reads import facets, find
from memories.reads.filters import BY_KEY, MemoryFilters
from memories.writes import bulk, doors
from tests.api.conftest import Api
from tests.conftest import make_user
from tests.pages.test_list import names

QUERY = "q=deploy+release"


@pytest.fixture
def store(db):
    doors.write("deploy-steps", description="How to deploy a release", priority=2)
    doors.write("ship-it", description="Deploy on Fridays only", priority=5)
    doors.write("release-notes", description="Notes for each release", priority=4)
    doors.write("promote", description="Promote the staging build to production", priority=3)
    doors.write("lunch", description="Lunch is at noon", priority=1)
    Memory.objects.filter(name="promote").update(read_count=3)


def _page_names(client, query: str) -> list[str]:
    return names(client.get(f"/memories/?{query}").content.decode())


def test_every_caller_of_a_hybrid_search_returns_the_rows_the_page_showed(auditor, operator, store):
    context = listing.listing_context(QueryDict(QUERY))
    shown = [row.memory.name for row in context["rows"]]
    assert shown[:3] and "deploy-steps" in shown  # a search in the default mode, hybrid
    assert _page_names(auditor, QUERY) == shown

    exported = b"".join(auditor.get(f"/memories/?{QUERY}&format=csv").streaming_content).decode()
    assert [row["name"] for row in csv.DictReader(io.StringIO(exported))] == shown
    data = json.loads(b"".join(auditor.get(f"/memories/?{QUERY}&format=json").streaming_content))
    assert [memory["name"] for memory in data["memories"]] == shown
    assert data["summary"] == context["summary"]

    api = Api(tokens.create_token(make_user("script", "auditor"), "read")[1])
    answered = api.get("/v1/memories", q="deploy release").json()
    assert [memory["name"] for memory in answered["memories"]] == shown
    assert answered["summary"] == context["summary"]

    form = MemoryListForm(QueryDict(QUERY))
    assert form.is_valid()
    by_id = dict(Memory.objects.values_list("id", "name"))
    every = find.every_id(find.Question.of(form), limit=bulk.BULK_LIMIT)
    assert [by_id[i] for i in every] == shown

    found = TOOLS["memory_search"].call(Session(None), {"queries": ["deploy release"]})
    entries = [entry.split(":")[0][2:] for entry in found.split("\n\n")[1:]]
    assert entries == shown

    out = io.StringIO()
    call_command("memory", "search", "deploy release", "--format", "json", stdout=out)
    assert [memory["name"] for memory in json.loads(out.getvalue())["memories"]] == shown

    # Last: a bulk action changes what it finds (verified_at, which freshness ranks by).
    writer = Api(tokens.create_token(make_user("bulk-script", "operator"), "write")[1])
    verify = {"action": "verify", "matching": True}
    verified = writer("POST", "/v1/bulk", verify, q="deploy release")
    assert sorted(memory["name"] for memory in verified.json()["memories"]) == sorted(shown)


def test_never_read_is_one_filter_everywhere(auditor, operator, store):
    never = sorted(Memory.objects.filter(read_count=0).values_list("name", flat=True))
    assert "promote" not in never and len(never) == 4

    page = auditor.get("/memories/?read=never").content.decode()
    assert sorted(_page_names(auditor, "read=never")) == never
    assert "4 memories never read, most important first" in page
    select = re.search(r'<select id="f-read" name="read">(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]*)"', select) == ["", "never"]
    assert '<option value="never" selected>never read</option>' in select

    fragment = auditor.get("/memories/_facets/").content.decode()
    facet = re.search(r'<div class="facet facet-read">(.*?)</div>', fragment, re.S).group(1)
    assert "<h3>Read by the agent</h3>" in facet
    assert '<a href="/memories/?read=never">never read</a> <span class="facet-count">4</span>' in (
        facet
    )
    read = facets.facets(MemoryFilters(read="never"), timezone.now())
    assert [(v.value, v.count) for f in read if f.key == "read" for v in f.values] == [("never", 4)]

    api = Api(tokens.create_token(make_user("script", "auditor"), "read")[1])
    answered = api.get("/v1/memories", read="never").json()
    assert sorted(memory["name"] for memory in answered["memories"]) == never
    assert answered["summary"] == "4 memories never read, most important first"
    assert api.get("/v1/memories", read="sometimes").status_code == 400
    parameters = document()["paths"]["/v1/memories"]["get"]["parameters"]
    (parameter,) = [p for p in parameters if p["name"] == "read"]
    assert parameter["schema"] == {"type": "string", "enum": ["", "never"]}

    schema = TOOLS["memory_search"].input_schema()["properties"]["read"]
    assert schema["enum"] == ["never"] and schema["description"] == BY_KEY["read"].description
    found = TOOLS["memory_search"].call(Session(None), {"read": "never"})
    assert found.startswith("4 memories never read, most important first.")

    out = io.StringIO()
    call_command("memory", "list", "--read", "never", "--format", "json", stdout=out)
    assert sorted(memory["name"] for memory in json.loads(out.getvalue())["memories"]) == never
