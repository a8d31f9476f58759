"""A URL's query built from a request's, some parameters replaced: the list page's links and
/v1's next and previous pages."""

from urllib.parse import urlencode

from django.http import QueryDict


def query_string(params: QueryDict, **changes: str | None) -> str:
    """`params` as a URL's query ("?..." or "" when empty), some replaced: a None value
    drops one (as Django admin's get_query_string(new_params, remove)).

    Built from the parameters' pairs rather than a changed copy of the QueryDict, whose deep
    copy cost a page a dozen times over.
    """
    pairs = [
        (key, value) for key, values in params.lists() if key not in changes for value in values
    ]
    pairs += [(key, value) for key, value in changes.items() if value is not None]
    encoded = urlencode(pairs)
    return "?" + encoded if encoded else ""
