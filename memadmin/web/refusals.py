"""A door's refusal as HTML: the sentence escaped, its `code` shown as code, and for a budget
refusal a link to the budget page of the band it names."""

import re

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from memories.rules.errors import DomainError, InlineBudgetExceeded
from memories.rules.tiers import label

_CODE = re.compile(r"`([^`]+)`")


def sentence_html(message: str) -> SafeString:
    """`message` escaped, with what it quotes in backticks (a setting, `load: index`) as code."""
    return mark_safe(_CODE.sub(r"<code>\1</code>", escape(message)))


def band_budget_url(band: str | None) -> str:
    """The budget page showing one band: a project's session's, or (None) a session on none."""
    url = reverse("insights:budget")
    return url if band is None else f"{url}?{urlencode({'project': band})}"


def refusal_html(error: DomainError) -> SafeString:
    html = sentence_html(error.message)
    if isinstance(error, InlineBudgetExceeded):
        # The seed's sentence ends bare (a tool's error line); here another sentence follows.
        stop = "" if error.message.endswith(".") else "."
        html = format_html(
            '{}{} <a class="refusal-link" href="{}">See the {} band’s budget</a>.',
            html,
            stop,
            band_budget_url(error.band),
            label(error.band),
        )
    return html
