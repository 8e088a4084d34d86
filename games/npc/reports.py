"""What the run page and the comparison page show for one source of episodes (a run, a group of
human games, the reference plan): the paper table, mean and 95 % CI per metric, pass^k, curves,
and on generated instances the distance to their certified optimum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena_site import charts
from games.engine import registry
from games.npc import optimality, stats
from games.npc.tables import paper_table

FAINT_LIMIT = 40  # individual episodes drawn behind a mean curve (more is noise on the page)


def source_report(domain: str, label: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    played = [r for r in rows if not r.get("error")]
    curves = [r.get("curve") or [] for r in played]
    return {
        "label": label,
        "episodes": len(played),
        "table": paper_table(domain, rows),
        "summary": stats.summary(domain, rows),
        "pass_k": stats.pass_hat_k(domain, rows),
        "curves": curves,
        "optimum": optimality.against_optimum(domain, rows),
    }


# How a domain's game time is labelled on a chart's axis: (units per label unit, its words).
AXIS_TIME = {"second": (60.0, "minutes"), "minute": (1.0, "minutes"), "step": (1.0, "steps")}


# minutes on an axis that long read better as hours or days (a trip of 5 days is 7,200 minutes)
LONGER_UNITS = ((3 * 1440.0, 1440.0, "days"), (10 * 60.0, 60.0, "hours"))


def _longer_unit(reports: Sequence[Mapping[str, Any]], scale: float) -> tuple[float, str]:
    """``scale`` game units per minute, or per hour or day when the longest curve is that long."""
    longest = max((float(c[-1][0]) for r in reports for c in r["curves"] if c), default=0.0) / scale
    for at_least, minutes, words in LONGER_UNITS:
        if longest >= at_least:
            return scale * minutes, words
    return scale, "minutes"


def curve_charts(reports: Sequence[Mapping[str, Any]], *, turns: bool = True, domain: str = "") -> dict[str, Any]:
    """Progress against game time (and decisions) for each report: its mean bold, episodes faint.
    ``domain``: its game time is labelled in minutes or steps (recipes' seconds as minutes)."""
    faint = len(reports) == 1

    def series(axis: int) -> list[dict[str, Any]]:
        out = []
        for report in reports:
            curves = [c for c in report["curves"] if c and (axis == 0 or (len(c[0]) > 2 and c[-1][1] is not None))]
            if not curves:
                continue
            out.append(
                {
                    "label": f"{report['label']} (mean of {len(curves)})",
                    "points": stats.mean_curve(curves, axis),
                    "faint": [charts.step_points(c, axis) for c in curves[:FAINT_LIMIT]] if faint else [],
                }
            )
        return out

    scale, words = AXIS_TIME.get(registry.get(domain).time_unit, (1.0, "")) if domain else (1.0, "")
    if words == "minutes":
        scale, words = _longer_unit(reports, scale)
    result = {
        "time": charts.line_chart(
            series(0),
            x_label=f"game time ({words})" if words else "game time",
            title="Progress against game time",
            x_scale=scale,
        )
    }
    if turns:
        result["turns"] = charts.line_chart(series(1), x_label="decisions", title="Progress against decisions")
    return result
