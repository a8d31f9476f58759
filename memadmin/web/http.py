"""Request typing and the one rendering rule of the pages: a full page, or for htmx its part."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def wants_fragment(request: HtmxHttpRequest) -> bool:
    """Whether render_page would answer with the fragment, so a view can skip the rest."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def render_page(
    request: HtmxHttpRequest,
    template: str,
    context: dict,
    *,
    fragment: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """`template` whole, or `template#fragment` when htmx asks (and not to restore history)."""
    name = f"{template}#{fragment}" if fragment and wants_fragment(request) else template
    response = render(request, name, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def safe_next(request: HttpRequest, fallback: str) -> str:
    """A `next` address from the form, if it stays on this site; else the fallback."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return fallback
