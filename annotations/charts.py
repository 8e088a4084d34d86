"""Server-rendered horizontal bar charts (SVG geometry for templates/annotations/_bars.svg.html).

No chart library and no CDN: the numbers are few, and SVG drawn on the server prints, scales and
reads well without JavaScript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

CHART_WIDTH = 300
CHAR_WIDTH = 7  # px per character of a 12px label, to size the label column
BAR_HEIGHT = 16
BAR_GAP = 4
GROUP_GAP = 12
SERIES_COLOURS = ["var(--agent-0)", "var(--agent-2)", "var(--agent-1)", "var(--agent-3)"]


@dataclass
class Bar:
    series: str
    value: float | None
    y: float = 0
    x: float = 0
    width: float = 0
    colour: str = ""
    text: str = ""
    text_x: float = 0
    text_y: float = 0


@dataclass
class Group:
    label: str
    bars: list[Bar]
    ref: float | None = None  # a reference level drawn as a dashed tick (e.g. the benchmark's)
    y: float = 0
    height: float = 0
    ref_x: float | None = None
    label_y: float = 0
    bottom: float = 0


@dataclass
class Chart:
    groups: list[Group]
    series: list[tuple[str, str]] = field(default_factory=list)  # (name, colour) for the legend
    ticks: list[tuple[float, str]] = field(default_factory=list)
    zero_x: float = 0
    width: int = 0
    height: float = 0
    plot_left: int = 0
    title: str = ""
    axis_bottom: float = 0
    tick_y: float = 0


def bar_chart(
    groups: Sequence[tuple[str, Sequence[tuple[str, float | None]], float | None]],
    *,
    low: float = 0.0,
    high: float = 1.0,
    percent: bool = False,
    title: str = "",
) -> Chart:
    """``groups``: (label, [(series, value or None)], reference or None). Values below ``low`` widen the axis."""
    label_width = min(260, max([len(label) for label, _, _ in groups] or [4]) * CHAR_WIDTH + 12)
    values = [v for _, bars, _ in groups for _, v in bars if v is not None]
    low = min([low, *values])
    span = (high - low) or 1.0

    def x_of(value: float) -> float:
        return label_width + CHART_WIDTH * (value - low) / span

    names = list(dict.fromkeys(series for _, bars, _ in groups for series, _ in bars))
    colours = {name: SERIES_COLOURS[i % len(SERIES_COLOURS)] for i, name in enumerate(names)}
    zero = x_of(0.0)
    y = 8.0
    out: list[Group] = []
    for label, bars, ref in groups:
        group = Group(label, [], ref, y=y)
        for series, value in bars:
            bar = Bar(series, value, y=y, colour=colours[series])
            if value is None:
                bar.x, bar.width, bar.text = zero, 0, "n/a (not defined)"
            else:
                end = x_of(value)
                bar.x, bar.width = min(zero, end), abs(end - zero)
                bar.text = f"{value:.0f}%" if percent else f"{value:.2f}"
            bar.text_x = max(zero, bar.x + bar.width) + 4
            bar.text_y = y + 12
            group.bars.append(bar)
            y += BAR_HEIGHT + BAR_GAP
        group.height = y - group.y - BAR_GAP
        group.ref_x = x_of(ref) if ref is not None else None
        group.label_y = group.y + group.height / 2 + 4
        group.bottom = group.y + group.height
        out.append(group)
        y += GROUP_GAP
    step = 25.0 if percent else 0.25
    ticks = []
    tick = step * round(low / step)
    while tick <= high + 1e-9:
        if tick >= low - 1e-9:
            ticks.append((x_of(tick), f"{tick:.0f}%" if percent else f"{tick:g}"))
        tick += step
    chart = Chart(out, [(n, colours[n]) for n in names], ticks, zero_x=zero, title=title)
    chart.plot_left = label_width
    chart.width = label_width + CHART_WIDTH + 110  # room for the value text after the longest bar
    chart.height = y + 18
    chart.axis_bottom = y
    chart.tick_y = y + 14
    return chart
