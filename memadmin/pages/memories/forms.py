"""Forms of the memory pages. Filters are the API's (memories.reads.filters); these add the page's
sort and cursors, the inline and bulk edits, and the full edit form.

Every value is checked here or by the doors' own field rules (memories.rules.fields), so a bad one
is a form error, never a 500.
"""

from django import forms
from django.utils import timezone

from memadmin.web.forms import RefusalsMixin
from memories.reads.find import FindForm
from memories.reads.listing import PAGE_COUNT_BOUND
from memories.reads.params import FirstErrorMixin, IdListField
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.errors import DomainError, InvalidField, NameClash

PAGE_SIZES = (25, 50, 100, 200)


class MemoryListForm(FindForm):
    def clean_limit(self):
        limit = self.cleaned_data["limit"]
        return 50 if limit is None else limit

    def clean(self):
        """The page's own refusals; /v1 lists what the same values match (an inverted
        priority range: nothing), so that every value its document admits is answered."""
        cleaned = super().clean()
        low, high = cleaned.get("priority_min"), cleaned.get("priority_max")
        if low is not None and high is not None and low > high:
            raise forms.ValidationError("The lowest priority is above the highest.")
        if not cleaned.get("q") and (cleaned.get("offset") or 0) > PAGE_COUNT_BOUND:
            raise forms.ValidationError(
                f"The list's numbered pages reach its first {PAGE_COUNT_BOUND:,} memories; "
                "further on, page with Next or narrow the filters."
            )
        return cleaned


def _by_rule(rule, value):
    """A value through the write door's own rule, its refusal the form's error."""
    try:
        return rule(value)
    except InvalidField as error:
        raise forms.ValidationError(error.message) from None


class RowForm(FirstErrorMixin, forms.Form):
    """An inline edit of one row: its priority or its load, each read by the door's rule, so
    a bad value is refused in the words /v1 and the commands use."""

    names_the_field = False  # the rules' sentences name their field
    priority = forms.CharField(required=False, max_length=40)
    load = forms.CharField(required=False, max_length=40)

    def clean_priority(self):
        return _by_rule(memory_fields.priority, self.cleaned_data["priority"])

    def clean_load(self):
        return _by_rule(memory_fields.load, self.cleaned_data["load"])

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("priority") is None and not cleaned.get("load"):
            raise forms.ValidationError("Give a priority or a load to change.")
        return cleaned


BULK_ACTIONS = [
    ("set_priority", "Set priority to"),
    ("shift_priority", "Shift priority by"),
    ("set_load", "Set load to"),
    ("add_tag", "Add the tag"),
    ("remove_tag", "Remove the tag"),
    ("verify", "Mark verified"),
    ("move", "Move to tier"),
    ("delete", "Delete"),
]


class BulkForm(FirstErrorMixin, forms.Form):
    names_the_field = False  # each message says what it is about ("Set priority to what?")

    action = forms.ChoiceField(choices=BULK_ACTIONS)
    scope = forms.ChoiceField(
        choices=[("selected", "the selected rows"), ("matching", "every row matching")],
        required=False,
    )
    id = IdListField(required=False)
    priority = forms.IntegerField(
        required=False, min_value=memory_fields.PRIORITY_MIN, max_value=memory_fields.PRIORITY_MAX
    )
    shift = forms.IntegerField(
        required=False, min_value=-memory_fields.PRIORITY_MAX, max_value=memory_fields.PRIORITY_MAX
    )
    load = forms.ChoiceField(required=False, choices=[(x, x) for x in memory_fields.LOADS])
    to = forms.CharField(required=False, max_length=64)
    tag = forms.CharField(required=False, max_length=memory_fields.MAX_TAG_LENGTH)
    confirm = forms.BooleanField(required=False)

    NEEDS = {
        "set_priority": "priority",
        "shift_priority": "shift",
        "set_load": "load",
        "add_tag": "tag",
        "remove_tag": "tag",
    }

    def clean_scope(self):
        return self.cleaned_data["scope"] or "selected"

    def clean_to(self):
        """The tier a move goes to: `*`-free, empty is the global tier, else a project name."""
        try:
            return memory_fields.tier(self.cleaned_data["to"])
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None

    def clean(self):
        cleaned = super().clean()
        action = cleaned.get("action")
        needed = self.NEEDS.get(action)
        if needed and cleaned.get(needed) in (None, ""):
            label = dict(BULK_ACTIONS)[action].lower()
            self.add_error(needed, f"{label[0].upper()}{label[1:]} what? Give a value.")
        if action == "move" and "to" not in self.data:
            self.add_error("to", "Move to which tier? Pick one.")
        if cleaned.get("scope") == "selected" and not cleaned.get("id"):
            raise forms.ValidationError(
                "Select some rows first, or choose every row matching the filters."
            )
        return cleaned


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


class LinesField(forms.CharField):
    """A list field edited one item a line (tags, references)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return "\n".join(value)
        return value

    def to_python(self, value):
        return lines(super().to_python(value) or "")

    def has_changed(self, initial, data):
        initial_list = initial if isinstance(initial, list) else lines(initial or "")
        return initial_list != self.to_python(data)


# The box that confirms an expiry already past, drawn once one was refused.
PAST_EXPIRY = "expired_ok"


class CountedCharField(forms.CharField):
    """Text held to max_length by a refusal naming the length, never cut short: a browser
    truncates what is pasted into a field with `maxlength` and says nothing, so the limit is
    given to the page's counter (data-max-chars, static/js/memadmin.js) instead."""

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        attrs.pop("maxlength", None)
        attrs["data-max-chars"] = str(self.max_length)
        return attrs


class MemoryForm(RefusalsMixin, forms.Form):
    """The full edit form of one memory (and the form that creates one).

    The initial values travel with the form (show_hidden_initial), so a save sends only
    what the user changed: a field someone else changed meanwhile keeps their value, and a
    changed body is checked against the body the user started from (a stale-body conflict).
    """

    # {{ form }} draws the fields in this layout (memadmin.web.form_renderer draws the widgets).
    template_name = "memories/_form_fields.html"

    description = CountedCharField(
        widget=forms.Textarea(attrs={"rows": 2}), max_length=memory_fields.MAX_DESCRIPTION_CHARS
    )
    body = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "true"}),
        max_length=memory_fields.MAX_BODY_CHARS,
    )
    tags = LinesField(required=False, help_text="One per line.")
    references = LinesField(
        required=False, help_text="One per line: a memory name, a path, a URL or an external id."
    )
    priority = forms.IntegerField(
        min_value=memory_fields.PRIORITY_MIN,
        max_value=memory_fields.PRIORITY_MAX,
        help_text="0 is the most important.",
    )
    load = forms.ChoiceField(
        choices=[("inline", "inline"), ("index", "index"), ("search", "search")],
        help_text="inline: the body is in every turn; index: listed by its description; "
        "search: reached by memory_search alone.",
    )
    source = forms.CharField(required=False, max_length=2048)
    expires = forms.CharField(
        required=False,
        max_length=64,
        help_text="RFC 3339 (2026-10-25T18:00:00Z) or a date (2026-10-25: the whole day). "
        "Empty: never.",
    )
    project = forms.ChoiceField(required=False, label="Tier")
    verified = forms.BooleanField(required=False, label="I checked this fact: mark it verified now")
    allow_secret = forms.BooleanField(
        required=False,
        label="Store it although it holds a credential (admins only; recorded in the history)",
    )
    expired_ok = forms.BooleanField(  # PAST_EXPIRY: drawn only once asked (asks_past_expiry)
        required=False,
        label="Save it already expired: out of the index and the inline band at once",
    )
    asks_past_expiry = False

    def __init__(self, *args, projects: list[str], admin: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not admin:
            del self.fields["allow_secret"]
        global_choice = ("", tiers.label(None))
        self.fields["project"].choices = [global_choice] + [(name, name) for name in projects]
        for name, field in self.fields.items():
            field.show_hidden_initial = name not in ("verified", "allow_secret", PAST_EXPIRY)

    def clean_expires(self):
        value = self.cleaned_data["expires"].strip()
        if value:
            try:
                moment = memory_fields.expires(value)
            except InvalidField as error:
                raise forms.ValidationError(error.message) from None
            if (
                moment <= timezone.now()
                and "expires" in self.changed_data
                and not self[PAST_EXPIRY].data
            ):
                self.asks_past_expiry = True
                raise forms.ValidationError(
                    f"{value} has passed: the memory would be saved already expired. "
                    "Tick the box below to save it so."
                )
        return value


class SupersedeForm(RefusalsMixin, forms.Form):
    """The memory of the same tier that this one supersedes (the write door's `supersedes`)."""

    supersedes = forms.CharField(
        max_length=memory_fields.MEMORY_NAME_MAX,
        label="The memory it supersedes",
        help_text="A memory of this tier, by name: it leaves the index and the inline band, "
        "and search still finds it, marked superseded.",
    )


class NewMemoryForm(MemoryForm):
    name = CountedCharField(max_length=memory_fields.MEMORY_NAME_MAX)

    field_order = ["name", "project", "description", "body"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.show_hidden_initial = False

    def clean_name(self):
        try:
            return memory_fields.name(self.cleaned_data["name"].strip())
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None

    def refuse(self, error: DomainError) -> None:
        """A name its tier holds already is refused beside the name typed."""
        if isinstance(error, NameClash):
            self.add_error("name", error.message)
        else:
            super().refuse(error)
