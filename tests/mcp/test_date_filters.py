"""memory_search's date ranges: each narrows, a bad value is a tool error naming it."""

import pytest

from memadmin.mcp.session import Session
from memadmin.mcp.tools import TOOLS
from memories.reads.filters import DATES
from memories.rules.errors import InvalidField
from tests import conftest


@pytest.fixture
def dated(db):
    conftest.dated("about {name}")


def _search(**arguments) -> str:
    return TOOLS["memory_search"].call(Session(None), arguments)


@pytest.mark.parametrize("name", [name for name, _, _ in DATES])
def test_each_range_is_an_argument_that_narrows(dated, name):
    assert {f"{name}_since", f"{name}_until"} <= set(TOOLS["memory_search"].parameters)
    end = "until" if name == "expires" else "since"
    text = _search(**{f"{name}_{end}": "7d"})
    assert text.startswith("1 memory") and "- fresh:" in text and "- old:" not in text


def test_a_bad_value_is_a_tool_error(dated):
    with pytest.raises(InvalidField) as refused:
        _search(verified_until="2026-13-01")
    assert refused.value.message == "verified_until: '2026-13-01' is not a calendar date."
