"""Memory bodies as HTML: Markdown with raw HTML off, then an allow-list sanitizer.

markdown-it-py with `html=False` turns any tag in the text into text; nh3 then keeps only
the tags and attributes listed here, links only to http, https and mailto, and marks every
link noopener. Images are not rendered (they would load from elsewhere); their Markdown
stays visible as text.
"""

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
    html = _renderer.render(text)
    clean = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # nh3 has just sanitized it
