"""The memory list's columns, and the ones each person hides, kept with their account."""

from dataclasses import dataclass

from django import forms
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.accounts import preferences, roles
from memadmin.web.access import requires_role
from memadmin.web.http import HtmxHttpRequest, safe_next
from memadmin.web.responses import error_response
from memories.reads.params import FirstErrorMixin


@dataclass(frozen=True)
class Column:
    key: str  # the cells' data-col, and what an account keeps to hide it
    label: str
    sorts: tuple[str, str] | None = None  # the sorts a click picks going up and going down
    numeric: bool = False


COLUMNS = [
    Column("name", "Name", ("name", "-name")),
    Column("tier", "Tier", ("tier", "tier")),
    Column("priority", "Priority", ("index", "-priority"), numeric=True),
    Column("load", "Load"),
    Column("description", "Description"),
    Column("tags", "Tags"),
    Column("recorded", "Recorded", ("-created", "created")),
    Column("verified", "Verified", ("verified", "-verified")),
    Column("expires", "Expires", ("expires", "-expires")),
    Column("reads", "Reads", ("-read_count", "read_count"), numeric=True),
    Column("refs", "Refs", numeric=True),
]
# The name says which memory a row is: it is always shown.
HIDEABLE = [(column.key, column.label) for column in COLUMNS if column.key != "name"]


class ColumnsForm(FirstErrorMixin, forms.Form):
    """The columns ticked to be shown; every other one is hidden."""

    show = forms.MultipleChoiceField(
        choices=HIDEABLE,
        required=False,
        error_messages={"invalid_choice": "There is no column ‘%(value)s’ to show."},
    )
    names_the_field = False

    def hidden(self) -> list[str]:
        shown = set(self.cleaned_data["show"])
        return [key for key, _ in HIDEABLE if key not in shown]


def hidden_columns(request: HtmxHttpRequest) -> list[str]:
    """The columns the signed-in person hides, only those the list still has."""
    known = {key for key, _ in HIDEABLE}
    return [key for key in preferences.hidden_columns(request.user) if key in known]


@require_POST
@requires_role(write=roles.AUDITOR)
def memory_columns(request: HtmxHttpRequest) -> HttpResponse:
    """Keep the columns shown and hidden; the list's script has hidden them already."""
    form = ColumnsForm(request.POST)
    if not form.is_valid():
        return error_response(request, 400, form.first_error())
    preferences.hide_columns(request.user, form.hidden())
    if request.htmx:
        return HttpResponse(status=204)
    return redirect(safe_next(request, reverse("memories:list")))
