"""User text never reaches FTS5 as syntax: hostile queries find something or nothing, calmly."""

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memories.engine.sqlite import search as fts
from memories.reads import search as search_module
from memories.reads.filters import MemoryFilters
from memories.reads.search import SENSES, search
from tests.reads.search.conftest import names

HOSTILE = [
    '"',
    '""',
    '"deploy',
    'deploy"',
    "NEAR(",
    "NEAR(deploy host)",
    "NEAR(deploy host, 2)",
    "body:",
    "body:deploy",
    "name:deploy",
    "{name body}: deploy",
    "- deploy",
    "^deploy",
    "*",
    "deploy*",
    "**",
    "AND",
    "OR",
    "NOT",
    "deploy AND",
    "AND deploy",
    "deploy OR host NOT bastion",
    "(",
    ")",
    "((deploy",
    "deploy))",
    ")(",
    "\x00",
    "dep\x00loy",
    "deploy\x00host",
    "%",
    "_",
    "\\",
    "%_\\'",
    "'; DROP TABLE memories_memory; --",
    "🙂",
    "deploy 🙂",
    "\u202edeploy\u202c",
    "zero\u200bwidth",
    "e\u0301",
    '東京"NEAR(',
    "ﾃｽﾄ",
    "ภาษา",
    "+deploy",
    ":",
    "deploy:host",
    "a" * 500,
    "deploy " * 300,
    "x" * 5000,
    "/",
    "//",
    "../../etc/passwd",
    "http://",
    "C:\\Windows\\",
    "\t\n",
]


@pytest.fixture
def store(write):
    write("deploy-host", description="Deploys go to host-7 through the bastion")
    write("tokyo", description='東京の天気 (NEAR the office) body: "quoted" 50% off_peak')


@pytest.mark.parametrize("query", HOSTILE, ids=[repr(q)[:40] for q in HOSTILE])
def test_hostile_queries_never_raise(store, query):
    result = search([query], MemoryFilters(), mode="words")
    assert result.count >= len(result.hits)
    assert all(hit.matched_by in SENSES for hit in result.hits)


@pytest.mark.parametrize(
    "query",
    ['"deploy"', "deploy*", "(deploy host)", "(deploy", "deploy)", "^deploy", "[deploy]"],
)
def test_syntax_around_words_is_read_as_words(store, query):
    result = search([query], MemoryFilters(), mode="words")
    assert names(result) == ["deploy-host"]
    assert result.hits[0].matched_by == "word"


@pytest.mark.parametrize("query", ["50%", "off_peak", 'body: "quoted"', '"quoted"'])
def test_punctuation_is_matched_as_the_text_it_is(store, query):
    assert names(search([query], MemoryFilters(), mode="words")) == ["tokyo"]


def test_a_like_wildcard_is_a_literal(store):
    assert search(["%"], MemoryFilters(), mode="words").hits[0].memory.name == "tokyo"
    assert search(["_"], MemoryFilters(), mode="words").hits[0].memory.name == "tokyo"
    assert search(["a%z"], MemoryFilters(), mode="words").hits == []


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@pytest.mark.engine("sqlite")
@given(st.text(max_size=80))
def test_the_escaper_never_raises_for_any_text(db, text):
    query = search_module.parse(text)
    expressions = []
    if query.words:
        expressions.append(fts.word_expression(query.words))
        expressions.append(fts.prefix_expression(query.words))
    expressions += [fts.quote(term.text) for term in query.terms]
    expressions.append(fts.quote(text))
    with connection.cursor() as cursor:
        for expression in expressions:
            cursor.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH %s", [expression]
            )
        cursor.execute(
            "SELECT count(*) FROM memories_memory WHERE body LIKE %s ESCAPE '\\'",
            [fts.like_pattern(search_module.clean(text))],
        )


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.text(max_size=40), max_size=4))
def test_search_never_raises_for_any_queries(store, queries):
    result = search(queries, MemoryFilters(), mode="words")
    assert all(hit.matched_by in SENSES for hit in result.hits)
