"""Charts drawn on the server as SVG: no chart library and no script. Colours come from CSS
classes (the stylesheet follows light and dark), sizes from the viewBox, and each chart
names itself for screen readers; the pages give the same figures as a table beside it."""

from dataclasses import dataclass

from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

LABEL_WIDTH = 150
BAR_AREA = 430
FIGURE_WIDTH = 170
ROW_HEIGHT = 22
ROW_GAP = 8


@dataclass
class Part:
    """One segment of a stacked bar."""

    value: int
    css: str  # a class of static/css/insights.css
    title: str


@dataclass
class Row:
    label: str
    parts: list[Part]
    figure: str  # the words after the bar, such as "31.2 KiB of 32.0 KiB"

    @property
    def total(self) -> int:
        return sum(part.value for part in self.parts)


def _n(value: float) -> str:
    """A coordinate as SVG takes it (format_html escapes its arguments to text first)."""
    return f"{value:.1f}"


def _short(text: str, length: int = 22) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


def stacked_bars(rows: list[Row], limit: int, *, title: str, limit_label: str) -> SafeString:
    """Horizontal stacked bars against one limit, drawn as a dashed line; a row past it is
    marked over."""
    if not rows:
        return mark_safe("")
    scale_max = max([limit, *(row.total for row in rows)]) * 1.05 or 1
    width = LABEL_WIDTH + BAR_AREA + FIGURE_WIDTH
    height = len(rows) * (ROW_HEIGHT + ROW_GAP) + 18

    def x(value: int) -> float:
        return LABEL_WIDTH + BAR_AREA * value / scale_max

    drawn = []
    for number, row in enumerate(rows):
        top = 14 + number * (ROW_HEIGHT + ROW_GAP)
        segments, start = [], 0
        for part in row.parts:
            if part.value <= 0:
                continue
            segments.append(
                format_html(
                    '<rect class="{}" x="{}" y="{}" width="{}" height="{}">'
                    "<title>{}</title></rect>",
                    part.css,
                    _n(x(start)),
                    top,
                    _n(x(start + part.value) - x(start)),
                    ROW_HEIGHT,
                    part.title,
                )
            )
            start += part.value
        state = "chart-row chart-row-over" if row.total > limit else "chart-row"
        drawn.append(
            format_html(
                '<g class="{}"><text class="chart-label" x="{}" y="{}">{}<title>{}</title></text>'
                '<rect class="chart-track" x="{}" y="{}" width="{}" height="{}"></rect>{}'
                '<text class="chart-figure" x="{}" y="{}">{}</text></g>',
                state,
                LABEL_WIDTH - 8,
                top + ROW_HEIGHT - 6,
                _short(row.label),
                row.label,
                LABEL_WIDTH,
                top,
                BAR_AREA,
                ROW_HEIGHT,
                mark_safe("".join(segments)),
                LABEL_WIDTH + BAR_AREA + 8,
                top + ROW_HEIGHT - 6,
                row.figure,
            )
        )
    line = x(limit)
    return format_html(
        '<svg class="chart chart-bars" viewBox="0 0 {} {}" role="img" aria-label="{}">'
        "{}"
        '<line class="chart-limit" x1="{}" y1="4" x2="{}" y2="{}"></line>'
        '<text class="chart-limit-label" x="{}" y="10">{}</text></svg>',
        width,
        height,
        title,
        mark_safe("".join(drawn)),
        _n(line),
        _n(line),
        height - 2,
        _n(line),
        limit_label,
    )


TICK_ROOM = 20  # the width of a priority label (up to 3 digits) and a gap, in viewBox units


def histogram(
    counts: dict[int, int], *, title: str, highlight_max: int | None = None, noun="memories"
) -> SafeString:
    """Vertical bars, one per value from the lowest to the highest present; bars at or under
    `highlight_max` get their own colour. Empty counts draw nothing."""
    if not counts:
        return mark_safe("")
    low, high = min(counts), max(counts)
    values = list(range(low, high + 1))
    tallest = max(counts.values())
    # Drawn at about the size it is shown (a third of the page), so its text stays readable.
    width, height, bottom, left = 340, 150, 116, 26
    slot = (width - left - 6) / len(values)
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100) if s * slot >= TICK_ROOM)
    # Written out rather than through format_html for each bar (a tier's histogram has a bar
    # a priority, the budget page nine histograms): every value is a number of ours but the
    # noun, escaped once.
    label = conditional_escape(noun)
    bar_width = _n(max(slot - 2, 1))
    bars = []
    for position, value in enumerate(values):
        count = counts.get(value, 0)
        bar_height = (bottom - 10) * count / tallest
        css = "chart-bar-important" if highlight_max is not None and value <= highlight_max else ""
        bars.append(
            f'<rect class="chart-bar {css}" x="{_n(left + position * slot + 1)}" '
            f'y="{_n(bottom - bar_height)}" width="{bar_width}" height="{_n(bar_height)}">'
            f"<title>priority {int(value)}: {int(count)} {label}</title></rect>"
        )
    ticks = format_html_join(
        "",
        '<text class="chart-tick" x="{}" y="{}">{}</text>',
        (
            (_n(left + position * slot + slot / 2), bottom + 15, value)
            for position, value in enumerate(values)
            if value % step == 0
        ),
    )
    return format_html(
        '<svg class="chart chart-histogram" viewBox="0 0 {} {}" role="img" aria-label="{}">'
        '<line class="chart-axis" x1="{}" y1="{}" x2="{}" y2="{}"></line>'
        '<text class="chart-tick chart-tick-y" x="{}" y="14">{}</text>{}{}'
        '<text class="chart-axis-label" x="{}" y="{}">priority (lower is more important)</text>'
        "</svg>",
        width,
        height,
        title,
        left,
        bottom,
        width - 4,
        bottom,
        left - 4,
        tallest,
        mark_safe("".join(bars)),
        ticks,
        left,
        height - 2,
    )


def histogram_rows(counts: dict[int, int]) -> SafeString:
    """The histogram's figures as table rows, lowest value first (numbers only: nothing to
    escape, and a template loop over nine tiers' priorities cost more than the chart)."""
    return mark_safe(
        "".join(
            f'<tr><th scope="row">{int(value)}</th><td class="num">{int(count):,}</td></tr>'
            for value, count in sorted(counts.items())
        )
    )
