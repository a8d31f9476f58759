"""A progress bar for long commands: drawn on a terminal, silent when the output is piped."""

import time

from django.core.management.base import OutputWrapper


class Progress:
    """`with Progress(self.stderr, total, "Exporting") as bar: ... bar.advance()`.

    Draws only when the stream is a terminal, at most ten times a second, and erases itself
    when done so the command's own last line stands alone.
    """

    WIDTH = 30
    INTERVAL = 0.1

    def __init__(self, stream: OutputWrapper, total: int, label: str):
        self.stream = stream
        self.total = max(total, 0)
        self.label = label
        self.done = 0
        self.enabled = stream.isatty()
        self._drawn_at: float | None = None
        self._width = 0

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._draw()
        return self

    def __exit__(self, *exc_info) -> None:
        if self.enabled and self._drawn_at is not None:
            self._put("\r" + " " * self._width + "\r")

    def advance(self, count: int = 1) -> None:
        self.done = min(self.done + count, self.total)
        if not self.enabled:
            return
        if self.done >= self.total or time.monotonic() - self._drawn_at >= self.INTERVAL:
            self._draw()

    def _draw(self) -> None:
        fraction = self.done / self.total if self.total else 1.0
        filled = round(self.WIDTH * fraction)
        line = (
            f"{self.label} [{'#' * filled}{'-' * (self.WIDTH - filled)}] {self.done}/{self.total}"
        )
        self._width = max(self._width, len(line))
        self._put("\r" + line)
        self._drawn_at = time.monotonic()

    def _put(self, text: str) -> None:
        # Plain, not in the red a command's stderr is styled with: a bar is not an error.
        self.stream.write(text, style_func=str, ending="")
        self.stream.flush()
