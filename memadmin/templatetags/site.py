"""What every page's frame (base.html) draws the same for every request of a view: the main
menu and the addresses of pages, each worked out once per process.

A `{% url %}` costs some 15 µs and the menu's fragment from Django's cache (`{% cache %}`:
the key hashed, the backend looked up and the value unpickled) some 40 µs, where a memory's
page is held to twice a plain Django view's time.
"""

from functools import lru_cache

from django import template
from django.template.loader import get_template
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@lru_cache(maxsize=256)
def _reversed(viewname: str, script_prefix: str, urlconf: str | None) -> str:
    return reverse(viewname, urlconf=urlconf)


@register.simple_tag
def page_url(viewname: str) -> str:
    """The address of a page that takes no arguments, as `{% url viewname %}` gives it."""
    return _reversed(viewname, get_script_prefix(), get_urlconf())


@lru_cache(maxsize=256)
def _menu(here: str, can_administer: bool, script_prefix: str, urlconf: str | None) -> SafeString:
    section = here.rpartition(":")[0]
    context = {"here": here, "section": section, "can_administer": can_administer}
    return mark_safe(get_template("partials/site_nav.html").render(context))


@register.simple_tag(takes_context=True)
def site_nav(context) -> SafeString:
    """The main menu, the current page marked: the same for every request of a view and a
    role, so drawn once per process for each."""
    match = context["request"].resolver_match
    here = match.view_name if match is not None else ""
    administers = bool(context.get("can_administer"))
    return _menu(here, administers, get_script_prefix(), get_urlconf())
