"""The list's URL query as the pages share it: the tier picker's "every tier" and the
canonical form of a query, so a shared URL says only what it filters."""

from django.http import QueryDict

ANY_TIER_VALUE = "*"  # the tier picker's "every tier": no `project` parameter at all


def canonical_query(params: QueryDict) -> QueryDict:
    """The list's query without blank parameters, so a shared URL says only what it filters.

    `project=` stays (it means the global tier); the picker's `*` (every tier) goes, leaving
    `project` absent as the API spells it.
    """
    clean = QueryDict(mutable=True)
    for key, values in params.lists():
        for value in values:
            if key == "project":
                if value != ANY_TIER_VALUE:
                    clean.appendlist(key, value.strip())
            elif value.strip():
                clean.appendlist(key, value)
    return clean
