"""What the engines' statements are built with alike: text and its bound parameters written
together, and a substring as a LIKE pattern."""

LIKE_ESCAPE = "\\"


class Sql:
    """Text and positional parameters built together, in the order they appear."""

    def __init__(self):
        self.parts: list[str] = []
        self.params: list = []

    def add(self, text: str, *params) -> "Sql":
        self.parts.append(text)
        self.params.extend(params)
        return self

    def text(self) -> str:
        return "".join(self.parts)


def like_pattern(text: str) -> str:
    """`text` anywhere, its `%`, `_` and the escape character (LIKE_ESCAPE) escaped."""
    escaped = (
        text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
        .replace("%", LIKE_ESCAPE + "%")
        .replace("_", LIKE_ESCAPE + "_")
    )
    return f"%{escaped}%"
