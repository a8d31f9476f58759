"""Forms of the projects page. A name is read as typed (blanks at the ends dropped) and checked
by the project doors (fields.project_name), so a refusal reads as it does from /v1 and
`manage.py project`; a CharField's own checks would answer first, in other words."""

from django import forms


class TypedName(forms.Field):
    def to_python(self, value) -> str:
        return value.strip() if isinstance(value, str) else ""


class AddForm(forms.Form):
    name = TypedName(required=False)


class RenameForm(forms.Form):
    new_name = TypedName(required=False)
