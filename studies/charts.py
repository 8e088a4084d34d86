"""Server-rendered SVG bar charts with error bars (means ± standard error per condition), in the
style of MindAgent's figure 5: groups along the x axis (one per measure), one bar per condition.

No JavaScript or CDN: the page embeds the SVG; colours come from the stylesheet's palette.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ["#1f5fbf", "#c2410c", "#047857", "#7c3aed", "#be185d", "#0e7490", "#a16207", "#4d7c0f"]


@dataclass(frozen=True)
class Bar:
    condition: str
    mean: float | None
    se: float | None
    n: int


@dataclass(frozen=True)
class Group:
    label: str
    bars: Sequence[Bar]


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


def bar_chart(
    groups: Sequence[Group],
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
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(conditions)}

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
            parts.append(
                f'<rect x="{x + 1:.1f}" y="{y_top:.1f}" width="{bar_w - 2:.1f}" height="{max(y_base - y_top, 0):.1f}" '
                f'fill="{colour[condition]}"><title>{escape(summary)}</title></rect>'
            )
            if bar.se:
                cx = x + bar_w / 2
                hi, lo = y(bar.mean + bar.se), y(bar.mean - bar.se)
                whiskers = f"M{cx:.1f} {hi:.1f}V{lo:.1f}M{cx - 5:.1f} {hi:.1f}h10M{cx - 5:.1f} {lo:.1f}h10"
                parts.append(f'<path d="{whiskers}" class="error-bar"/>')
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
