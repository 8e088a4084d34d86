"""Every chart of the site, drawn on the server as SVG: no JavaScript, no chart library, no CDN.
The numbers are few, and SVG drawn on the server prints, scales and reads well without scripts.

- ``mean_bars``: a study's means ± 1 SE per condition, one group per measure (MindAgent's figure 5
  style), returned as an accessible ``<svg>`` (``templates/studies``);
- ``row_bars``: horizontal grouped bars with a reference tick, the geometry for
  ``templates/annotations/_bars.svg.html`` (agreement per property and pair);
- ``line_chart`` and ``step_points``: score curves of benchmark episodes, the geometry for
  ``templates/npc/_line_chart.html``.

Axes share one rounding rule (``nice_ceiling``: 1, 2, 2.5 or 5 × 10^k).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def nice_ceiling(value: float) -> float:
    """A round axis maximum at or above ``value`` (1, 2, 2.5, 5 × 10^k)."""
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        candidate = step * 10**exponent
        if candidate >= value - 1e-12:
            return float(candidate)
    return float(10 ** (exponent + 1))


# -- mean ± SE bars per condition (studies) ------------------------------------------------------
CONDITION_COLOURS = ["#1f5fbf", "#c2410c", "#047857", "#7c3aed", "#be185d", "#0e7490", "#a16207", "#4d7c0f"]


@dataclass(frozen=True)
class MeanBar:
    condition: str
    mean: float | None
    se: float | None
    n: int


@dataclass(frozen=True)
class MeanGroup:
    label: str
    bars: Sequence[MeanBar]


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _wrap(text: str, width: int) -> list[str]:
    """Split a label into at most two lines of about ``width`` characters."""
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return [lines[0], " ".join(lines[1:])] if len(lines) > 2 else lines


def _legend_layout(conditions: Sequence[str], start: float, end: float) -> tuple[list[tuple[float, int]], int]:
    """(x, row) of each legend entry (about 7 px per character) and the number of rows."""
    placed: list[tuple[float, int]] = []
    x, row = start, 0
    for condition in conditions:
        entry = 24 + 7 * len(condition)
        if x > start and x + entry > end:
            x, row = start, row + 1
        placed.append((x, row))
        x += entry
    return placed, row + 1


MIN_BAR_HEIGHT = 3.0  # px: a bar at the axis' floor still shows


def mean_bars(
    groups: Sequence[MeanGroup],
    conditions: Sequence[str],
    *,
    title: str,
    y_min: float = 0.0,
    y_max: float | None = None,
    unit: str = "",
    width: int = 720,
    height: int = 300,
) -> SafeString:
    """An accessible SVG: a <title>, a text summary per bar, a legend of conditions."""
    tops = [(b.mean or 0) + (b.se or 0) for g in groups for b in g.bars if b.mean is not None]
    top = y_max if y_max is not None else nice_ceiling(max(tops, default=1.0))
    top = max(top, y_min + 1e-9)
    left, right, upper = 52, 12, 16
    legend_positions, rows = _legend_layout(conditions, left, width - right)
    labels_h = 44 if len(groups) > 1 else 8
    lower = labels_h + 20 * rows + 8
    plot_w, plot_h = width - left - right, height - upper - lower
    colour = {c: CONDITION_COLOURS[i % len(CONDITION_COLOURS)] for i, c in enumerate(conditions)}

    def y(value: float) -> float:
        return upper + plot_h * (1 - (min(max(value, y_min), top) - y_min) / (top - y_min))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'class="chart" aria-labelledby="t{id(groups)}">',
        f'<title id="t{id(groups)}">{escape(title)}</title>',
    ]
    # Horizontal grid lines and y labels at a round step (1 for Likert scales, 0.2 for rates ...).
    step = nice_ceiling((top - y_min) / 5)
    ticks = max(1, round((top - y_min) / step))
    for k in range(ticks + 1):
        value = y_min + step * k
        yy = y(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}" class="grid-line"/>')
        parts.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" class="tick" text-anchor="end">{_fmt(value)}</text>')
    if unit:
        mid = upper + plot_h / 2
        parts.append(
            f'<text x="12" y="{mid:.1f}" class="tick" transform="rotate(-90 12 {mid:.1f})" '
            f'text-anchor="middle">{escape(unit)}</text>'
        )
    group_w = plot_w / max(len(groups), 1)
    bar_w = min(36.0, group_w * 0.8 / max(len(conditions), 1))
    for g_index, group in enumerate(groups):
        x0 = left + g_index * group_w + (group_w - bar_w * len(conditions)) / 2
        for b_index, condition in enumerate(conditions):
            bar = next((b for b in group.bars if b.condition == condition), None)
            if bar is None or bar.mean is None:
                continue
            x = x0 + b_index * bar_w
            y_top, y_base = y(bar.mean), y(y_min)
            summary = f"{group.label}, {condition}: mean {bar.mean:.2f}"
            summary += f", SE {bar.se:.2f}" if bar.se is not None else ""
            summary += f", n = {bar.n}"
            # a mean at the axis' floor (0 orders, "1 = strongly disagree") keeps a sliver of its
            # bar and its value above it: drawn as nothing, it read as "no data"
            y_top = min(y_top, y_base - MIN_BAR_HEIGHT)
            parts.append(
                f'<rect x="{x + 1:.1f}" y="{y_top:.1f}" width="{bar_w - 2:.1f}" height="{y_base - y_top:.1f}" '
                f'fill="{colour[condition]}"><title>{escape(summary)}</title></rect>'
            )
            cx = x + bar_w / 2
            label_y = y_top
            if bar.se:
                hi, lo = y(bar.mean + bar.se), y(bar.mean - bar.se)
                whiskers = f"M{cx:.1f} {hi:.1f}V{lo:.1f}M{cx - 5:.1f} {hi:.1f}h10M{cx - 5:.1f} {lo:.1f}h10"
                parts.append(f'<path d="{whiskers}" class="error-bar"/>')
                label_y = min(label_y, hi)
            parts.append(
                f'<text x="{cx:.1f}" y="{max(label_y - 4, 11):.1f}" class="tick bar-value" text-anchor="middle" '
                f'aria-hidden="true">{bar.mean:.2f}</text>'
            )
        if len(groups) == 1:
            continue  # the chart's heading names its only measure
        label_x = left + g_index * group_w + group_w / 2
        lines = _wrap(group.label, max(6, int(group_w / 7)))
        spans = "".join(
            f'<tspan x="{label_x:.1f}" dy="{0 if k == 0 else 13}">{escape(line)}</tspan>'
            for k, line in enumerate(lines)
        )
        parts.append(
            f'<text x="{label_x:.1f}" y="{upper + plot_h + 16:.1f}" class="group-label" '
            f'text-anchor="middle">{spans}</text>'
        )
    # Legend under the axis, wrapped into rows that fit the width.
    for condition, (lx, row) in zip(conditions, legend_positions, strict=True):
        ly = height - 8 - 20 * (rows - row)
        parts.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{colour[condition]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{ly + 10}" class="legend">{escape(condition)}</text>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{upper}" y2="{upper + plot_h}" class="axis"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


# -- horizontal grouped bars (annotation agreement) ---------------------------------------------
ROW_PLOT_WIDTH = 300
LABEL_CHAR_WIDTH = 7  # px per character of a 12px label, to size the label column
BAR_HEIGHT = 16
BAR_GAP = 4
GROUP_GAP = 12
SERIES_COLOURS = ["var(--agent-0)", "var(--agent-2)", "var(--agent-1)", "var(--agent-3)"]


@dataclass
class RowBar:
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
class RowGroup:
    label: str
    bars: list[RowBar]
    ref: float | None = None  # a reference level drawn as a dashed tick (e.g. the benchmark's)
    y: float = 0
    height: float = 0
    ref_x: float | None = None
    label_y: float = 0
    bottom: float = 0


@dataclass
class RowChart:
    groups: list[RowGroup]
    series: list[tuple[str, str]] = field(default_factory=list)  # (name, colour) for the legend
    ticks: list[tuple[float, str]] = field(default_factory=list)
    zero_x: float = 0
    width: int = 0
    height: float = 0
    plot_left: int = 0
    title: str = ""
    axis_bottom: float = 0
    tick_y: float = 0


def row_bars(
    groups: Sequence[tuple[str, Sequence[tuple[str, float | None]], float | None]],
    *,
    low: float = 0.0,
    high: float = 1.0,
    percent: bool = False,
    title: str = "",
    plot_width: int = ROW_PLOT_WIDTH,
) -> RowChart:
    """``groups``: (label, [(series, value or None)], reference or None). Values below ``low`` widen the
    axis. ``plot_width``: the bars' room (narrower for a chart in half a card, so that its text is not
    scaled down with it)."""
    label_width = min(260, max([len(label) for label, _, _ in groups] or [4]) * LABEL_CHAR_WIDTH + 12)
    values = [v for _, bars, _ in groups for _, v in bars if v is not None]
    low = min([low, *values])
    span = (high - low) or 1.0

    def x_of(value: float) -> float:
        return label_width + plot_width * (value - low) / span

    names = list(dict.fromkeys(series for _, bars, _ in groups for series, _ in bars))
    colours = {name: SERIES_COLOURS[i % len(SERIES_COLOURS)] for i, name in enumerate(names)}
    zero = x_of(0.0)
    y = 8.0
    out: list[RowGroup] = []
    for label, bars, ref in groups:
        group = RowGroup(label, [], ref, y=y)
        for series, value in bars:
            bar = RowBar(series, value, y=y, colour=colours[series])
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
    chart = RowChart(out, [(n, colours[n]) for n in names], ticks, zero_x=zero, title=title)
    chart.plot_left = label_width
    # room for the value text after the longest bar ("0.61", "n/a (not defined)")
    longest = max((len(bar.text) for group in out for bar in group.bars), default=4)
    chart.width = label_width + plot_width + longest * LABEL_CHAR_WIDTH + 12
    chart.height = y + 18
    chart.axis_bottom = y
    chart.tick_y = y + 14
    return chart


# -- score curves (benchmarks) ------------------------------------------------------------------
LINE_WIDTH, LINE_HEIGHT = 640, 280
LINE_LEFT, LINE_RIGHT, LINE_TOP, LINE_BOTTOM = 48, 16, 12, 40
# Distinguishable in colour and in grey scale (Okabe-Ito), one per series.
LINE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
LINE_DASHES = ("", "6 3", "2 3", "8 3 2 3", "", "6 3", "2 3", "8 3 2 3")


def _ticks(end: float, count: int = 5) -> list[float]:
    """Round x ticks from 0 to ``end``, about ``count`` of them, at least one unit apart."""
    if end <= 0:
        return [0.0]
    step = max(1.0, nice_ceiling(end / count))
    ticks, value = [], 0.0
    while value <= end + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _label(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-6 else f"{value:.1f}"


def line_chart(
    series: Sequence[dict[str, Any]],
    *,
    x_label: str,
    y_label: str = "score (0-100)",
    title: str = "",
    x_scale: float = 1.0,
) -> dict[str, Any]:
    """``series``: ``[{"label", "points": [(x, y)], "faint": [[(x, y), ...], ...]}]``. ``x_scale``:
    the x values per unit the axis is labelled in (60 for seconds labelled as minutes)."""
    xs = [x for s in series for x, _y in s.get("points", [])]
    xs += [x for s in series for line in s.get("faint", []) for x, _y in line]
    end = max(xs, default=0.0) or 1.0
    plot_w, plot_h = LINE_WIDTH - LINE_LEFT - LINE_RIGHT, LINE_HEIGHT - LINE_TOP - LINE_BOTTOM

    def sx(x: float) -> float:
        return LINE_LEFT + plot_w * x / end

    def sy(y: float) -> float:
        return LINE_TOP + plot_h * (1 - min(max(y, 0.0), 100.0) / 100.0)

    def path(points: Sequence[tuple[float, float]]) -> str:
        return " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)

    lines = []
    for index, s in enumerate(series):
        colour = LINE_COLOURS[index % len(LINE_COLOURS)]
        lines.append(
            {
                "label": s["label"],
                "colour": colour,
                "dash": LINE_DASHES[index % len(LINE_DASHES)],
                "points": path(s.get("points", [])),
                "faint": [path(line) for line in s.get("faint", []) if line],
                "last": round(s["points"][-1][1], 1) if s.get("points") else None,
            }
        )
    return {
        "title": title,
        "width": LINE_WIDTH,
        "height": LINE_HEIGHT,
        "left": LINE_LEFT,
        "right": LINE_WIDTH - LINE_RIGHT,
        "top": LINE_TOP,
        "bottom": LINE_HEIGHT - LINE_BOTTOM,
        "middle": (LINE_TOP + LINE_HEIGHT - LINE_BOTTOM) // 2,
        "x_label": x_label,
        "y_label": y_label,
        "x_ticks": [{"at": round(sx(t * x_scale), 1), "label": _label(t)} for t in _ticks(end / x_scale)],
        "y_ticks": [{"at": round(sy(t), 1), "label": _label(t)} for t in (0, 25, 50, 75, 100)],
        "lines": lines,
        "empty": not any(line["points"] for line in lines),
    }


def step_points(curve: Sequence[Sequence[float]], axis: int) -> list[tuple[float, float]]:
    """A stored curve (``[[time, turns, value], ...]``) as a step line against ``axis``: the score
    holds until it changes."""
    out: list[tuple[float, float]] = []
    for point in curve:
        x, y = float(point[axis]), float(point[2])
        if out:
            out.append((x, out[-1][1]))
        out.append((x, y))
    return out
