"""Memory bodies as HTML: Markdown with raw HTML off, then an allow-list sanitizer.

markdown-it-py with `html=False` turns any tag in the text into text; nh3 then keeps only
the tags and attributes listed here, links only to http, https and mailto, and marks every
link noopener. Images are not rendered (they would load from elsewhere); their Markdown
stays visible as text.
"""

import functools

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_renderer = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    .enable(["table", "strikethrough"])
    .disable("image")
)

TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del", "code",
    "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


def render_markdown(text: str) -> SafeString:
    if len(text) > MEMO_MAX_CHARS:
        return mark_safe(_render(text))  # nh3 has just sanitized it
    return mark_safe(_remembered(text))


# The HTML of a body is the same for as long as the body is: the last bodies drawn are kept
# by their text (a short body's rendering and sanitizing was a share of the memory's page:
# bench/results/2026-12-01-detail-5).
MEMO_MAX_CHARS = 16_384
MEMO_BODIES = 256


def _render(text: str) -> str:
    return nh3.clean(
        _renderer.render(text),
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


_remembered = functools.lru_cache(maxsize=MEMO_BODIES)(_render)
