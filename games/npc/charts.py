"""Line charts as server-rendered SVG (``templates/npc/_line_chart.html``): no JavaScript, no CDN.

``line_chart`` lays series out in a fixed viewBox with axes, ticks and a legend; the template only
draws what it is given. Scores are 0-100 on the y axis; x is game time or decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 12, 40
# Distinguishable in colour and in grey scale (Okabe-Ito), one per series.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "", "6 3", "2 3", "8 3 2 3")


def _ticks(end: float, count: int = 5) -> list[float]:
    if end <= 0:
        return [0.0]
    raw = end / count
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    step = next((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), raw)
    ticks, value = [], 0.0
    while value <= end + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _label(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-6 else f"{value:.1f}"


def line_chart(
    series: Sequence[dict[str, Any]], *, x_label: str, y_label: str = "score (0-100)", title: str = ""
) -> dict[str, Any]:
    """``series``: ``[{"label", "points": [(x, y)], "faint": [[(x, y), ...], ...]}]``."""
    xs = [x for s in series for x, _y in s.get("points", [])]
    xs += [x for s in series for line in s.get("faint", []) for x, _y in line]
    end = max(xs, default=0.0) or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + plot_w * x / end

    def sy(y: float) -> float:
        return TOP + plot_h * (1 - min(max(y, 0.0), 100.0) / 100.0)

    def path(points: Sequence[tuple[float, float]]) -> str:
        return " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)

    lines = []
    for index, s in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        lines.append(
            {
                "label": s["label"],
                "colour": colour,
                "dash": DASHES[index % len(DASHES)],
                "points": path(s.get("points", [])),
                "faint": [path(line) for line in s.get("faint", []) if line],
                "last": round(s["points"][-1][1], 1) if s.get("points") else None,
            }
        )
    return {
        "title": title,
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "middle": (TOP + HEIGHT - BOTTOM) // 2,
        "x_label": x_label,
        "y_label": y_label,
        "x_ticks": [{"at": round(sx(t), 1), "label": _label(t)} for t in _ticks(end)],
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
