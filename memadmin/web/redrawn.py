"""A door's refusal answered by the page it came from, drawn again with the refusal beside its
form or row: what a page view writes instead of catching a DomainError itself. A refusal a view
lets out is DomainErrorPageMiddleware's page, as /v1's is api.responses.methods' JSON."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.http import HttpResponse

from memadmin.web.forms import RefusalsMixin
from memories.rules.errors import DomainError


class Redrawn(Exception):
    """A refusal its view has drawn already: DomainErrorPageMiddleware answers `response`."""

    def __init__(self, response: HttpResponse):
        super().__init__(response.status_code)
        self.response = response


@contextmanager
def on_refusal(
    again: Callable[[DomainError], HttpResponse], *, form: RefusalsMixin | None = None
) -> Iterator[None]:
    """A refusal raised inside the block answers as `again(refusal)` draws it (the form, row or
    panel again, the refusal beside it, at the refusal's status) rather than as the refusal's
    own page; with `form`, the refusal is first put beside the field it names.

    What follows the block runs only when nothing was refused. A refusal `again` raises
    itself (the row to draw is gone) is answered as its own page.
    """
    try:
        yield
    except DomainError as refusal:
        if form is not None:
            form.refuse(refusal)
        raise Redrawn(again(refusal)) from refusal
