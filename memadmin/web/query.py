"""A URL's query built from a request's, some parameters replaced (the list page's links and
/v1's next and previous pages), and the paths those links lead to."""

import functools
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import get_script_prefix, get_urlconf, reverse


def address(view: str) -> str:
    """The path of a view that takes no arguments, as reverse() gives it, kept per script
    prefix and URLconf: the list draws its own address into a dozen links on every page."""
    return _address(view, get_script_prefix(), get_urlconf())


@functools.lru_cache(maxsize=128)
def _address(view: str, prefix: str, urlconf: str | None) -> str:
    return reverse(view, urlconf=urlconf)


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
