"""The plain rules shared by every edge: a tier in words, the budget's arithmetic, and the
one parse of `project=` with its variants."""

import ast
import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest
from django import forms
from django.http import QueryDict

from memories import rules
from memories.models import Memory
from memories.reads.params import FirstErrorMixin, TierForm, session_project, tier_param
from memories.rules import budget, fields, tiers
from memories.rules.errors import InvalidField, UnknownProject

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("wording", "global_words", "project_words"),
    [
        (tiers.label, "global", "webdev"),
        (tiers.column, "(global)", "webdev"),
        (tiers.phrase, "the global tier", "project 'webdev'"),
        (tiers.noun, "the global tier", "webdev"),
        (tiers.where, "in the global tier", "in webdev"),
    ],
)
def test_each_wording_of_a_tier(wording, global_words, project_words):
    assert (wording(None), wording("webdev")) == (global_words, project_words)


def test_a_memory_named_with_its_tier():
    assert tiers.memory_label("notes", None) == "'notes' (global)"
    assert tiers.memory_label("notes", "webdev") == "'notes' (webdev)"


@pytest.mark.parametrize(
    ("value", "absent", "expected"),
    [
        (None, tiers.ANY_TIER, tiers.ANY_TIER),
        (None, None, None),
        ("", tiers.ANY_TIER, None),
        ("  ", tiers.ANY_TIER, None),
        (" webdev ", tiers.ANY_TIER, "webdev"),
    ],
)
def test_one_parse_of_a_tier(value, absent, expected):
    assert fields.tier(value, absent=absent) == expected


def test_a_tier_with_a_bad_name_is_refused_as_a_project_name():
    with pytest.raises(InvalidField) as error:
        fields.tier("bad name")
    assert error.value.field == "project"


def test_tier_param_says_what_absent_means():
    assert tier_param(QueryDict("")) is tiers.ANY_TIER
    assert tier_param(QueryDict(""), absent=None) is None
    assert tier_param({"project": "webdev"}, absent=None) == "webdev"


def test_session_project_absent_or_empty_is_no_project(project):
    assert session_project(QueryDict("")) is None
    assert session_project(QueryDict("project=")) is None
    assert session_project(QueryDict("project=webdev")) == project
    with pytest.raises(UnknownProject):
        session_project(QueryDict("project=ghost"))


def test_session_project_among_the_projects_a_page_holds(project, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert session_project(QueryDict("project=webdev"), among=[project]) is project
        assert session_project(QueryDict("project="), among=[project]) is None
        with pytest.raises(UnknownProject):
            session_project(QueryDict("project=ghost"), among=[project])


class _Named(FirstErrorMixin, forms.Form):
    priority = forms.IntegerField()

    def clean(self):
        raise forms.ValidationError("The whole form is wrong.")


class _Unnamed(_Named):
    names_the_field = False


def test_first_error_names_its_field_unless_the_form_says_not():
    named, unnamed = _Named({"priority": "x"}), _Unnamed({"priority": "x"})
    assert not named.is_valid() and not unnamed.is_valid()
    assert named.first_error() == "priority: Enter a whole number."
    assert unnamed.first_error() == "Enter a whole number."
    assert (named.first_error_field(), unnamed.first_error_field()) == ("priority", "priority")


def test_first_error_of_the_whole_form_is_its_message_alone():
    form = _Named({"priority": "1"})
    assert not form.is_valid()
    assert (form.first_error(), form.first_error_field()) == ("The whole form is wrong.", None)
    assert TierForm({}).is_valid() and TierForm({}).first_error() == ""


def _contribution(tier, size, memory_id=None):
    return budget.InlineContribution(memory_id, f"m{size}", None, tier, size)


def test_a_contribution_counts_inline_bodies_in_force_in_utf8_bytes():
    def of(**values):
        memory = {"load": "inline", "body": "é" * 3, "expires_at": None, **values}
        return budget.InlineContribution.of(
            memory_id=1, name="n", project=None, tier=0, now=NOW, **memory
        ).bytes

    assert of() == 6
    assert of(load="index") == 0
    assert of(body="") == 0
    assert of(expires_at=NOW) == 0
    assert of(expires_at=NOW + dt.timedelta(seconds=1)) == 6


def test_a_stored_memorys_contribution_reads_its_tier_from_its_project():
    stored = SimpleNamespace(
        id=7,
        name="n",
        project_name="webdev",
        project_id=3,
        load="inline",
        body="abc",
        expires_at=None,
    )
    assert budget.InlineContribution.of_memory(stored, NOW) == budget.InlineContribution(
        7, "n", "webdev", 3, 3
    )
    assert budget.InlineContribution.of_memory(
        SimpleNamespace(**{**vars(stored), "project_name": None, "project_id": None}), NOW
    ) == budget.InlineContribution(7, "n", None, tiers.GLOBAL_TIER, 3)


def test_of_memory_needs_no_query_for_a_memory_loaded_without_its_tier(
    write, project, django_assert_num_queries
):
    write("n", project="webdev", load="inline", body="abc")
    memory = (
        Memory.objects.select_related("project")
        .only("id", "name", "project_id", "project__name", "load", "body", "expires_at")
        .get()
    )
    with django_assert_num_queries(0):
        assert budget.InlineContribution.of_memory(memory, NOW).tier == project.id


def test_a_breach_is_a_band_grown_past_the_budget():
    totals = {0: 40, 5: 30}
    # The global tier's band is measured with the fullest project's.
    grown = budget.breach(totals, [], [_contribution(0, 40)], 100)
    assert grown == budget.Breach(tiers=(0, 5), total=110, was=70)
    assert budget.breach(totals, [], [_contribution(5, 30)], 100) is None  # exactly 100
    assert budget.breach(totals, [], [_contribution(5, 31)], 100) == budget.Breach((0, 5), 101, 70)


def test_a_change_that_shrinks_a_band_over_the_budget_is_no_breach():
    totals = {0: 150}
    shrinking = budget.breach(totals, [_contribution(0, 50, 1)], [_contribution(0, 20, 1)], 100)
    same = budget.breach(totals, [_contribution(0, 50, 1)], [_contribution(0, 50, 1)], 100)
    assert shrinking is None and same is None
    growing = budget.breach(totals, [_contribution(0, 50, 1)], [_contribution(0, 51, 1)], 100)
    assert growing == budget.Breach((0,), 151, 150)


def test_rules_run_no_query():
    """The layers contract keeps models out of the rules; this keeps the database out."""
    for path in Path(rules.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not {m for m in imported if m == "django.db" or m.startswith("django.db.")}, path
