"""The templates the rows are built from escape as Django's format_html does, by default."""

import string

import pytest
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy

from memadmin.templatetags import dashboard
from memadmin.templatetags.dashboard import HtmlTemplate
from tests.pages.test_escaping import PAYLOADS

VALUES = [
    *PAYLOADS,
    "plain words",
    "",
    'it\'s & "quoted" {0} {name} %s',
    0,
    1234,
    True,
    None,
    12.5,
    gettext_lazy("<b>lazy</b>"),
    mark_safe("<b>ours</b>"),
    SafeString(""),
]
TEMPLATES = [
    value
    for value in vars(dashboard).values()
    if isinstance(value, HtmlTemplate) and value is not HtmlTemplate
]


@pytest.mark.parametrize("value", VALUES)
def test_a_template_escapes_as_format_html(value):
    template = HtmlTemplate('<a href="{value}" title="{value}">{value}</a>{other} {{braces}}')
    ours = template.format(value=value, other=value)
    assert ours == format_html(template.source, value=value, other=value)
    assert isinstance(ours, SafeString)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda template: template.source[:40])
@pytest.mark.parametrize("value", PAYLOADS)
def test_every_field_of_the_dashboards_templates_is_escaped(template, value):
    fields = {field for _, field, _, _ in string.Formatter().parse(template.source) if field}
    values = dict.fromkeys(fields, value)
    html = template.format_map(dict(values))
    assert html == format_html(template.source, **values)
    assert value not in html or value == conditional_escape(value)


@pytest.mark.parametrize("value", VALUES)
def test_escaped_is_conditional_escape(value):
    assert dashboard.escaped(value) == conditional_escape(value)
    assert isinstance(dashboard.escaped(value), SafeString)


def test_html_join_escapes_each_fragment_that_is_not_html():
    joined = dashboard.html_join(" | ", [mark_safe("<b>ours</b>"), "<i>theirs</i>", 7])
    assert joined == "<b>ours</b> | &lt;i&gt;theirs&lt;/i&gt; | 7"
    assert isinstance(joined, SafeString)


def test_a_fragment_is_escaped_once_however_deep_it_is_nested():
    inner = HtmlTemplate("<b>{text}</b>").format(text="<x>")
    outer = HtmlTemplate("<p>{inner}{text}</p>").format(inner=inner, text="&")
    assert outer == "<p><b>&lt;x&gt;</b>&amp;</p>"


@pytest.mark.parametrize("source", ["<b>{}</b>", "<b>{0}</b>", "<b>{n:>3}</b>", "<b>{n!r}</b>"])
def test_a_template_takes_named_fields_only(source):
    with pytest.raises(ValueError, match="not a plain named field"):
        HtmlTemplate(source)
