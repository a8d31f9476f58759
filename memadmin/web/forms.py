"""What the pages' forms share: a door's refusal shown where the user typed the value."""

from memadmin.web.refusals import refusal_html
from memories.rules.errors import DomainError


class RefusalsMixin:
    def refuse(self, error: DomainError) -> None:
        """A door's refusal shown with the input it names, or above the form, as the rows and
        the bulk bar show one (web.refusals: its `code` as code, a budget's band linked)."""
        field = error.details.get("field")
        self.add_error(field if field in self.fields else None, refusal_html(error))
