"""Request parameters shared by the pages, /v1 and the commands: the tier a route names, the
project whose session a page shows, lists of row ids, and a form's first error in one line."""

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS

from memories.rules import fields as memory_fields
from memories.rules.errors import InvalidField, UnknownProject
from memories.rules.tiers import ANY_TIER
from projects.models import Project


def tier_param(params, *, absent=ANY_TIER):
    """`project` as a route names a tier: empty the global tier (None), else a project's name;
    absent is `absent` (ANY_TIER on the routes that find a name in whichever tier holds it)."""
    return memory_fields.tier(params.get("project"), absent=absent)


def session_project(params, among: list[Project] | None = None) -> Project | None:
    """The project whose session a page shows: `project` names it; absent or empty, a session
    on no project. A name no project has is refused. `among`, every project, saves reading
    it when the page reads them all for its tabs."""
    name = tier_param(params, absent=None)
    if not name:
        return None
    if among is None:
        return Project.objects.named(name)
    found = next((project for project in among if project.name == name), None)
    if found is None:
        raise UnknownProject(name)
    return found


class FirstErrorMixin:
    """A form's first error in one line, as a page or /v1 refuses the request with it:
    `field: message` (the field's label on a page), or the message alone for an error of
    the whole form. A form whose messages name their field already sets
    `names_the_field = False`."""

    names_the_field = True

    def first_error(self, *, labelled: bool = False) -> str:
        """`labelled`: the field named as a page shows it (its label), not by its parameter."""
        for field, errors in self.errors.items():
            if field == NON_FIELD_ERRORS or not self.names_the_field:
                return errors[0]
            label = self.fields[field].label if labelled and field in self.fields else None
            return f"{label or field}: {errors[0]}"
        return ""

    def first_error_field(self) -> str | None:
        """The field the first error is about; None for an error of the whole form."""
        field = next(iter(self.errors), NON_FIELD_ERRORS)
        return None if field == NON_FIELD_ERRORS else field


class TierForm(FirstErrorMixin, forms.Form):
    """`project=` alone, as the single-memory routes and pages address a tier."""

    project = forms.CharField(required=False, max_length=memory_fields.PROJECT_NAME_MAX)

    def clean_project(self):
        try:
            return tier_param(self.data)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None


class IdListField(forms.Field):
    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        values = [value] if isinstance(value, str) else list(value or [])
        try:
            return memory_fields.record_ids(values)
        except InvalidField as error:
            raise forms.ValidationError(
                f"The selected rows are not valid: {error.message}"
            ) from None
