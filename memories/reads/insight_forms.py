"""The parameters of the audit pages and their /v1 routes: the filters are the list's and the
API's (memories.reads.filters), with the graph's node cap and depth, and the hygiene's section.

One form per kind of request serves the page, its JSON and /v1 alike, so a URL moves
between them.
"""

from dataclasses import replace

from django import forms

from memories.reads import consolidation, graph, hygiene
from memories.reads.filters import MemoryFilterForm, MemoryFilters
from memories.reads.params import FirstErrorMixin, IdListField, TierForm

HYGIENE_SECTIONS = {
    "dangling": "Dangling references",
    "orphans": "Referenced by nothing, referencing nothing",
    "shadows": "Project memories shadowing a global one",
    "unverified": "Verification queue",
    "duplicates": "Near-duplicate descriptions",
    "secrets": "Memories holding a credential",
    "corrections": "Facts and their corrections",
}
NODE_CAPS = (300, 1500, 5000, graph.MAX_NODE_CAP)


class GraphForm(MemoryFilterForm):
    """The store-wide graph: the list's filters; `limit` is the node cap (up to 10,000)."""

    limit = forms.IntegerField(required=False, min_value=1, max_value=graph.MAX_NODE_CAP)

    def clean_limit(self):
        limit = self.cleaned_data["limit"]
        return graph.DEFAULT_NODE_CAP if limit is None else limit

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("q"):
            raise forms.ValidationError(
                "The graph is filtered, not searched: use tier, tag, load or expiry."
            )
        return cleaned


class NeighbourhoodForm(FirstErrorMixin, forms.Form):
    """One memory's neighbourhood: its tier (`project`, as the single-memory routes take it),
    the depth (1 to 3) and the node cap."""

    depth = forms.IntegerField(required=False, min_value=1, max_value=graph.MAX_DEPTH)
    limit = forms.IntegerField(required=False, min_value=1, max_value=graph.MAX_NODE_CAP)

    def clean_depth(self):
        return self.cleaned_data["depth"] or 1

    def clean_limit(self):
        limit = self.cleaned_data["limit"]
        return graph.DEFAULT_NODE_CAP if limit is None else limit


class HygieneForm(MemoryFilterForm):
    """The hygiene lists: the list's filters (the tier, a tag...), `unverified` the queue's
    period (90 days unless given), `section` one list alone, `limit` and `offset` its page."""

    section = forms.ChoiceField(required=False, choices=[(k, k) for k in hygiene.LISTS])

    def clean_unverified(self):
        return self.cleaned_data["unverified"] or hygiene.DEFAULT_PERIOD

    def clean_limit(self):
        limit = self.cleaned_data["limit"]
        return hygiene.SECTION_LIMIT if limit is None else limit

    def clean_offset(self):
        return self.cleaned_data["offset"] or 0

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("q"):
            raise forms.ValidationError("Hygiene lists are filtered, not searched.")
        return cleaned

    def scope(self) -> MemoryFilters:
        """The filters the lists are drawn from: everything but the queue's period."""
        return replace(self.filters(), unverified=None)


class ConsolidationForm(TierForm):
    """The consolidation plan: `project` one tier (absent: every tier, empty: the global
    one), `limit` the clusters drawn."""

    limit = forms.IntegerField(required=False, min_value=1, max_value=consolidation.PLAN_MAX)

    def clean_limit(self):
        limit = self.cleaned_data["limit"]
        return consolidation.PLAN_LIMIT if limit is None else limit


class IdsForm(forms.Form):
    """Memories picked by id, as the verify buttons and the compare page send them."""

    id = IdListField()

    def clean_id(self):
        ids = self.cleaned_data["id"]
        if not ids:
            raise forms.ValidationError("Pick at least one memory.")
        return ids
