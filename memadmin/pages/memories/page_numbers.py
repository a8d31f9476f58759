"""The list's numbered pages, where its count is known: the first, the last, and those around
the page shown, each a link to its offset (Previous and Next keep to the rows' cursors)."""

from collections.abc import Callable

AROUND = 2  # pages linked on each side of the current one


def page_numbers(
    count: int, start: int | None, limit: int, url_at: Callable[[int], str]
) -> list[dict | None]:
    """The links of a list of `count` rows whose page starts at row `start`, `limit` a page;
    `url_at(offset)` is the address of the page at that offset. A None stands for the pages
    left out between two links. No links for a single page, or where the start is unknown."""
    if start is None or count <= limit:
        return []
    pages = -(-count // limit)
    current = min(start // limit + 1, pages)
    wanted = {1, pages, *range(current - AROUND, current + AROUND + 1)}
    links: list[dict | None] = []
    previous = 0
    for number in sorted(n for n in wanted if 1 <= n <= pages):
        if number > previous + 1:
            links.append(None)
        links.append(
            {
                "number": number,
                "url": url_at((number - 1) * limit),
                "current": number == current,
            }
        )
        previous = number
    return links
