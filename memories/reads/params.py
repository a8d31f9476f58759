"""Request parameters shared by the pages, /v1 and the commands: the tier a single-memory
route names, and lists of row ids."""

from django import forms

from memories.reads.filters import ANY_TIER
from memories.rules import fields as memory_fields


def tier_param(params):
    """`project` of a single-memory route: absent ANY_TIER, empty the global tier, a name."""
    if "project" not in params:
        return ANY_TIER
    return memory_fields.tier(params.get("project", ""))


class IdListField(forms.Field):
    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        values = [value] if isinstance(value, str) else list(value or [])
        try:
            return sorted({int(item) for item in values})
        except (TypeError, ValueError):
            raise forms.ValidationError("The selected rows are not valid.") from None
