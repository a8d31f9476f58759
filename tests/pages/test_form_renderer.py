"""The form renderer draws the common widgets in Python: the same HTML as Django's templates."""

import pytest
from django import forms
from django.forms.renderers import TemplatesSetting
from django.utils.safestring import mark_safe

from memadmin.pages.memories.forms import MemoryForm, NewMemoryForm
from memadmin.web.form_renderer import FormRenderer

HOSTILE = "\"quoted\" & 'single' <b>bold</b>"


class EveryWidget(forms.Form):
    text = forms.CharField(max_length=10, help_text="help")
    number = forms.IntegerField(min_value=0, max_value=9, required=False)
    hidden = forms.CharField(widget=forms.HiddenInput, required=False)
    checked = forms.BooleanField(required=False)
    password = forms.CharField(widget=forms.PasswordInput(render_value=True), required=False)
    email = forms.EmailField(required=False)
    url = forms.URLField(required=False, assume_scheme="https")
    search = forms.CharField(widget=forms.TextInput(attrs={"type": "search"}), required=False)
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), required=False)
    area = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "data-x": True}))
    plain = forms.ChoiceField(choices=[("", "none"), ("a", "A & B"), (1, HOSTILE)])
    grouped = forms.ChoiceField(
        choices=[("", "pick"), ("Group <1>", [("x", "X"), ("y", "Y")]), ("z", "Z")],
        required=False,
    )
    disabled = forms.CharField(disabled=True, required=False)


def both(form_class, *args, **kwargs) -> tuple[str, str]:
    """The form drawn by our renderer and by Django's templates alone."""
    ours = form_class(*args, renderer=FormRenderer(), **kwargs)
    django = form_class(*args, renderer=TemplatesSetting(), **kwargs)
    return str(ours), str(django)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"text": HOSTILE, "number": "12", "checked": "on", "area": HOSTILE, "plain": "1"},
        {"text": "", "hidden": HOSTILE, "password": HOSTILE, "grouped": "y", "email": "x"},
        {"text": mark_safe("<i>kept</i>"), "area": "", "url": "not a url", "date": "nope"},
    ],
)
def test_every_widget_drawn_as_djangos_templates_draw_it(data):
    ours, django = both(EveryWidget, data, initial={"text": HOSTILE, "area": "first\nsecond"})
    assert ours == django
    assert "<textarea" in ours and "<optgroup" in ours and 'type="checkbox"' in ours


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"description": HOSTILE, "priority": "x", "load": "nowhere", "project": "webdev"},
        {"description": "d", "body": HOSTILE, "priority": "3", "load": "inline", "tags": "a\nb"},
    ],
)
def test_the_memory_forms_drawn_as_djangos_templates_draw_them(data):
    initial = {
        "description": HOSTILE,
        "body": "line\n" + HOSTILE,
        "tags": ["ops", "<x>"],
        "references": ["a"],
        "priority": 3,
        "load": "index",
        "source": HOSTILE,
        "expires": "",
        "project": "webdev",
    }
    projects = ["webdev", "in'fra"]
    for form_class in (MemoryForm, NewMemoryForm):
        ours, django = both(form_class, data, initial=initial, projects=projects)
        assert ours == django
        assert 'id="id_description"' in ours and 'name="project"' in ours


def test_other_templates_go_to_the_template_engine():
    class OwnOptions(forms.Select):
        option_template_name = "django/forms/widgets/radio_option.html"

    class Choices(forms.Form):
        radios = forms.ChoiceField(choices=[("a", "A")], widget=forms.RadioSelect)
        own = forms.ChoiceField(choices=[("a", "A")], widget=OwnOptions)

    ours, django = both(Choices, {"radios": "b"})
    assert ours == django and 'type="radio"' in ours and "errorlist" in ours
    assert '<select name="own"' in ours and '<input type="select" name="own"' in ours
