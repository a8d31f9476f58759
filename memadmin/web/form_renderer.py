"""The form renderer (settings.FORM_RENDERER): the project's templates, with the widgets
forms draw most written out in Python.

The memory edit form alone draws some twenty widgets and their options, each a template
with nested includes; through the template engine they were a large share of the page
(bench/results/2026-12-01-detail-5). The
widgets keep Django's own context (`Widget.get_context`: the attributes come from the field
definitions, `aria-*` and `required` from the bound field) and only the last step, the
widget's template, is replaced by the same markup built with `format_html`, escaped alike.
tests/pages/test_form_renderer.py holds each to Django's template, character for character.
Any other template (a form's layout, radio buttons, error lists) goes to the template engine.
"""

from django.forms.renderers import TemplatesSetting
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


def _attrs(attrs: dict) -> SafeString:
    """django/forms/widgets/attrs.html: False leaves the attribute out, True writes it bare."""
    return mark_safe(
        "".join(
            format_html(" {}", name) if value is True else format_html(' {}="{}"', name, value)
            for name, value in attrs.items()
            if value is not False
        )
    )


def _input(widget: dict) -> SafeString:
    value = widget["value"]
    return format_html(
        '<input type="{}" name="{}"{}{}>',
        widget["type"],
        widget["name"],
        format_html(' value="{}"', value) if value is not None else "",
        _attrs(widget["attrs"]),
    )


def _textarea(widget: dict) -> SafeString:
    return format_html(
        '<textarea name="{}"{}>\n{}</textarea>',
        widget["name"],
        _attrs(widget["attrs"]),
        widget["value"] or "",
    )


_OPTION_TEMPLATE = "django/forms/widgets/select_option.html"


def _option(option: dict) -> SafeString:
    return format_html(
        '<option value="{}"{}>{}</option>',
        option["value"],
        _attrs(option["attrs"]),
        option["label"],
    )


def _select(widget: dict) -> SafeString | None:
    if any(
        option["template_name"] != _OPTION_TEMPLATE
        for _group, options, _index in widget["optgroups"]
        for option in options
    ):
        return None  # a widget with options of its own making: its templates draw it
    parts = [format_html('<select name="{}"{}>', widget["name"], _attrs(widget["attrs"]))]
    for group_name, options, _index in widget["optgroups"]:
        if group_name:
            parts.append(format_html('\n  <optgroup label="{}">', group_name))
        # select_option.html ends in a line break, which Django's include keeps
        parts.extend(format_html("\n  {}\n", _option(option)) for option in options)
        if group_name:
            parts.append(mark_safe("\n  </optgroup>"))
    parts.append(mark_safe("\n</select>"))
    return mark_safe("".join(parts))


_WIDGETS = {
    **{
        f"django/forms/widgets/{kind}.html": _input
        for kind in (
            "text",
            "number",
            "hidden",
            "checkbox",
            "password",
            "email",
            "url",
            "search",
            "tel",
            "date",
            "datetime",
            "time",
        )
    },
    "django/forms/widgets/textarea.html": _textarea,
    "django/forms/widgets/select.html": _select,
}


class FormRenderer(TemplatesSetting):
    def render(self, template_name, context, request=None):
        draw = _WIDGETS.get(template_name)
        html = None if draw is None else draw(context["widget"])
        if html is None:
            return super().render(template_name, context, request)
        return html
