"""A form field's <input> in a hand-laid template, so its limits (maxlength, min, max) are the
field's own and never copied into the template."""

import html

from django import template
from django.forms import BoundField
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def field_input(field: BoundField, **attrs) -> str:
    """The field's input: its name, type, value and limits as its widget has them, and the
    page's attributes (id, placeholder...).

    Laid out as the templates wrote it (`id`, `name`, `type`, `value`, then the rest), where
    the widget's own template puts the type first; without the aria-describedby that
    BoundField.as_widget points at an error element these templates do not have; and with
    html.escape, as the list's rows are drawn: format_html and flatatt took over ten times
    as long an input (bench/results/2026-12-04-figures-from-comments).
    """
    drawn = field.field.widget.get_context(field.html_name, field.value(), attrs)["widget"]
    laid_out = {
        "id": attrs.get("id"),
        "name": drawn["name"],
        "type": drawn["type"],
        "value": drawn["value"] or "",
        **{key: value for key, value in drawn["attrs"].items() if key != "id"},
    }
    return mark_safe(
        "<input"
        + "".join(
            f" {key}" if value is True else f' {key}="{html.escape(str(value), quote=True)}"'
            for key, value in laid_out.items()
            if value is not None and value is not False
        )
        + ">"
    )
