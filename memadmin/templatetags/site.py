"""What pages draw the same for every request that shows the same: the main menu and the
addresses of pages in every page's frame (base.html), each worked out once per process, and
fragments kept by what they show (`{% drawn_once %}`).

Timed node by node on a memory's page, a `{% url %}` and the menu's fragment from Django's
cache (`{% cache %}`: the key hashed, the backend looked up, the value unpickled) were
measurable shares of a page held to twice a plain Django view's time
(bench/results/2026-12-01-detail-6).
"""

import threading
from collections import OrderedDict
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


class _Drawings:
    """The last `size` fragments drawn, each kept by everything it was drawn from (per
    process, shared by its threads)."""

    def __init__(self, size: int):
        self.size = size
        self._kept: OrderedDict[tuple, SafeString] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> SafeString | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def keep(self, key: tuple, drawn: SafeString) -> None:
        with self._lock:
            self._kept[key] = drawn
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


DRAWINGS = _Drawings(size=128)
# A larger fragment (a long body, a much-cited memory) is drawn each time: 128 of these at
# most are some 10 MB a process.
KEPT_CHARS = 65_536


class DrawnOnceNode(template.Node):
    def __init__(self, nodelist, key):
        self.nodelist, self.key = nodelist, key

    def render(self, context) -> SafeString:
        key = self.key.resolve(context)
        if not key:
            return self.nodelist.render(context)
        key = (self.origin.name, self.token.lineno, key)  # the fragment, and what it shows
        drawn = DRAWINGS.get(key)
        if drawn is None:
            drawn = mark_safe(self.nodelist.render(context))
            if len(drawn) <= KEPT_CHARS:
                DRAWINGS.keep(key, drawn)
        return drawn


@register.tag
def drawn_once(parser, token):
    """`{% drawn_once key %}...{% end_drawn_once %}`: the fragment drawn again only when `key`
    changes. `key` is a tuple of everything the fragment shows (None or empty: drawn each
    time). Django's `{% cache %}` hashes its key's text, looks its backend up and unpickles
    the fragment: on a memory's page it took several times this lookup
    (bench/results/2026-12-04-figures-from-comments)."""
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError(f"{bits[0]} takes one key: what the fragment shows.")
    nodelist = parser.parse(("end_drawn_once",))
    parser.delete_first_token()
    return DrawnOnceNode(nodelist, parser.compile_filter(bits[1]))
