"""Benchmark results laid out like the papers' tables (SPEC sections 2-5).

``paper_table(domain, results)`` returns ``{"title", "columns", "rows": [{"label", "values"}]}``
where every value is a number (or None when undefined, e.g. CT with no completed episode).
Rows follow each paper: tasks by #Task and category (AS, CS, CR, CT); recipes with and without
time constraints (Success, Progress, R-Eff, S×E); kitchen by level and number of agents, one
column per α and their mean CoS; itinerary by sample type with the three scoring levels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import mean
from typing import Any

from games.engine import registry

Row = Mapping[str, Any]  # {"item": {...}, "metrics": {...}}


def _exact_mean(values: Iterable[Any]) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return mean(numbers) if numbers else None


def _mean(values: Iterable[Any]) -> float | None:
    value = _exact_mean(values)
    return None if value is None else round(value, 2)


def _rate(values: Iterable[Any]) -> float | None:
    flags = [bool(v) for v in values if v is not None]
    return round(100 * sum(flags) / len(flags), 2) if flags else None


def _grouped(rows: Sequence[Row], key: Callable[[Mapping[str, Any]], Any]) -> list[tuple[Any, list[Row]]]:
    groups: dict[Any, list[Row]] = {}
    for row in rows:
        groups.setdefault(key(row["item"].get("group", {})), []).append(row)
    return list(groups.items())


def tasks_table(rows: Sequence[Row]) -> dict[str, Any]:
    out = []
    for (count, category), members in _grouped(rows, lambda g: (g.get("tasks", 1), g.get("category", ""))):
        metrics = [m["metrics"] for m in members]
        done_times = [m.get("completion_time") for m in metrics if m.get("completed")]
        out.append(
            {
                "label": f"#Task={count} · {category}",
                "values": [
                    _mean(m.get("progress") for m in metrics),
                    _mean(m.get("completion_speed") for m in metrics),
                    _rate(m.get("completed") for m in metrics),
                    _mean(done_times),
                ],
                "episodes": len(members),
            }
        )
    return {"title": "TimeArena", "columns": ["AS", "CS", "CR", "CT"], "rows": out}


def recipes_table(rows: Sequence[Row]) -> dict[str, Any]:
    out = []
    for constraints, members in _grouped(rows, lambda g: g.get("constraints", "")):
        metrics = [m["metrics"] for m in members]
        out.append(
            {
                "label": f"{constraints} time constraints",
                "values": [
                    _rate(m.get("success") for m in metrics),
                    _mean(m.get("progress") for m in metrics),
                    _mean(m.get("efficiency") for m in metrics),
                    _mean(m.get("r_efficiency") for m in metrics),
                    _mean(m.get("se") for m in metrics),
                ],
                "episodes": len(members),
            }
        )
    return {"title": "Recipe2Plan", "columns": ["Success", "Progress", "Efficiency", "R-Eff", "S×E"], "rows": out}


def kitchen_table(rows: Sequence[Row]) -> dict[str, Any]:
    alphas = sorted({float(r["item"].get("group", {}).get("alpha", 0)) for r in rows})
    out = []
    for (level, agents), members in _grouped(rows, lambda g: (g.get("level", ""), g.get("agents", 1))):
        exact = []
        for alpha in alphas:
            rates = [
                m["metrics"].get("success_rate")
                for m in members
                if float(m["item"].get("group", {}).get("alpha", 0)) == alpha
            ]
            exact.append(_exact_mean(rates))  # rounded only as shown (5 of 7 read 71.00, not 71.43)
        per_alpha = [None if value is None else round(100 * value, 2) for value in exact]
        present = [100 * value for value in exact if value is not None]
        cos = round(mean(present), 2) if present else None
        out.append(
            {
                "label": f"{level} · {agents} agent{'' if agents == 1 else 's'}",
                "values": [*per_alpha, cos],
                "episodes": len(members),
            }
        )
    return {"title": "CuisineWorld", "columns": [*(f"α={a:g}" for a in alphas), "CoS"], "rows": out}


def itinerary_table(rows: Sequence[Row]) -> dict[str, Any]:
    out = []
    for kind, members in _grouped(rows, lambda g: g.get("type", "briefs")):
        metrics = [m["metrics"] for m in members]
        out.append(
            {
                "label": str(kind),
                "values": [
                    _mean(m.get(k) for m in metrics) for k in ("executability", "constraints", "efficiency", "total")
                ],
                "episodes": len(members),
            }
        )
    return {
        "title": "ItineraryBench",
        "columns": ["Executability (60)", "Constraints (20)", "Efficiency (20)", "Total (100)"],
        "rows": out,
    }


def metrics_table(rows: Sequence[Row]) -> dict[str, Any]:
    """A domain without a paper's table: the mean of every numeric metric over all episodes."""
    metrics = [m["metrics"] for m in rows]
    keys = sorted({k for m in metrics for k, v in m.items() if isinstance(v, int | float) and not isinstance(v, bool)})
    values = [_mean(m.get(k) for m in metrics) for k in keys]
    return {"title": "Metrics", "columns": keys, "rows": [{"label": "all", "values": values, "episodes": len(rows)}]}


def paper_table(domain: str, rows: Sequence[Row]) -> dict[str, Any]:
    """The domain's table (its descriptor's ``benchmark_table``), else ``metrics_table``."""
    layout = registry.descriptor(domain).part("benchmark_table") or metrics_table
    return layout([r for r in rows if not r.get("error")])  # type: ignore[no-any-return]
