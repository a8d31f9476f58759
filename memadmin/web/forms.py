"""What the pages' forms share: a door's refusal shown where the user typed the value."""

from memories.rules.errors import DomainError


class RefusalsMixin:
    def refuse(self, error: DomainError) -> None:
        """A door's refusal shown with the input it names, or above the form."""
        field = error.details.get("field")
        self.add_error(field if field in self.fields else None, error.message)
