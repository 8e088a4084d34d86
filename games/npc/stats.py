"""Error bars for benchmark results: mean and 95 % bootstrap CI per metric, pass^k, mean curves.

Every function takes plain episode rows ``{"item", "metrics", "curve"?}`` so runs, human games and
reference plans are summarised the same way (``games.npc.comparison``).

- **Instances, not episodes, are resampled.** An instance is an item without its attempt (the same
  scenarios, options, team size and seed); its attempts are averaged first, then
  ``scipy.stats.bootstrap`` resamples instances (percentile method, a fixed random state so a page
  shows the same interval every time). Repeats therefore narrow the interval only as far as they
  reduce each instance's noise, never by pretending k attempts are k tasks.
- **pass^k** (τ-bench): the chance that k attempts at an instance all succeed, estimated per
  instance with n attempts of which c succeeded as C(c, k) / C(n, k), averaged over instances.
  pass^1 is the plain success rate. What "success" is per domain its descriptor says (``success``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from games.engine import registry

Row = Mapping[str, Any]
Getter = Callable[[Mapping[str, Any]], float | None]
RESAMPLES = 2000
CONFIDENCE = 0.95


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return 100.0 if value else 0.0
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _key(name: str, scale: float = 1.0) -> Getter:
    def get(metrics: Mapping[str, Any]) -> float | None:
        value = _number(metrics.get(name))
        return None if value is None else value * scale

    return get


def _if_completed(name: str) -> Getter:
    def get(metrics: Mapping[str, Any]) -> float | None:
        return _number(metrics.get(name)) if metrics.get("completed") else None

    return get


@dataclass(frozen=True)
class Metric:
    label: str
    get: Getter
    lower_is_better: bool = False


# The papers' headline metrics, per episode (booleans as 0/100 so a mean is a rate in %); each
# domain's descriptor names its list (``benchmark_metrics``) and its success for pass^k (``success``).
TASKS_METRICS = [
    Metric("AS (progress)", _key("progress")),
    Metric("CS (speed)", _key("completion_speed")),
    Metric("CR (completed %)", _key("completed")),
    Metric("CT (time, completed only)", _if_completed("completion_time"), lower_is_better=True),
]
RECIPES_METRICS = [
    Metric("Success %", _key("success")),
    Metric("Progress", _key("progress")),
    Metric("Efficiency", _key("efficiency")),
    Metric("R-Eff", _key("r_efficiency")),
    Metric("S×E", _key("se")),
]
KITCHEN_METRICS = [Metric("Success rate %", _key("success_rate", 100.0))]
ITINERARY_METRICS = [
    Metric("Executability (60)", _key("executability")),
    Metric("Constraints (20)", _key("constraints")),
    Metric("Efficiency (20)", _key("efficiency")),
    Metric("Total (100)", _key("total")),
]


# When an episode counts as a success for pass^k (the papers' own binary outcome where they have
# one; kitchen: every order served; itinerary: a plan that executes and meets every constraint).
def tasks_success(metrics: Mapping[str, Any]) -> bool:
    return bool(metrics.get("completed"))


def recipes_success(metrics: Mapping[str, Any]) -> bool:
    return bool(metrics.get("success"))


def kitchen_success(metrics: Mapping[str, Any]) -> bool:
    return (_number(metrics.get("success_rate")) or 0.0) >= 1.0


def itinerary_success(metrics: Mapping[str, Any]) -> bool:
    return (_number(metrics.get("executability")) or 0) >= 60 and (_number(metrics.get("constraints")) or 0) >= 20


DEFAULT_SUCCESS = "the result's own success (or completed) flag"


def success_meaning(domain: str) -> str:
    return registry.descriptor(domain).success_meaning or DEFAULT_SUCCESS


def instance_of(item: Mapping[str, Any]) -> str:
    """The item without its attempt: what repeats of the same task share."""
    return str(item.get("instance") or item.get("key", ""))


def _by_instance(rows: Iterable[Row]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = {}
    for row in rows:
        if not row.get("error"):
            groups.setdefault(instance_of(row["item"]), []).append(row)
    return groups


def mean_ci(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """(mean, low, high) with a 95 % percentile bootstrap; no interval from fewer than 2 values."""
    if not values:
        return None, None, None
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) < 2:
        return mean, None, None
    if np.ptp(data) == 0:
        return mean, mean, mean
    result = scipy_stats.bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(0),
    )
    return mean, float(result.confidence_interval.low), float(result.confidence_interval.high)


def metrics_for(domain: str, rows: Sequence[Row]) -> list[Metric]:
    """The paper's metrics, or for a domain without them every scalar number its results carry."""
    own = registry.descriptor(domain).part("benchmark_metrics")
    if own is not None:
        return list(own)
    names: list[str] = []
    for row in rows:
        for name, value in (row.get("metrics") or {}).items():
            if _number(value) is not None and name not in names:
                names.append(name)
    return [Metric(name.replace("_", " "), _key(name)) for name in names]


def success_for(domain: str) -> Callable[[Mapping[str, Any]], bool] | None:
    """The domain's success, or its results' own ``success`` / ``completed`` flag."""
    own = registry.descriptor(domain).part("success")
    if own is not None:
        return own  # type: ignore[no-any-return]
    return lambda m: bool(m.get("success", m.get("completed")))


def summary(domain: str, rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One line per metric: mean and 95 % CI over instances, with the counts behind them."""
    groups = _by_instance(rows)
    out = []
    for metric in metrics_for(domain, rows):
        per_instance = []
        episodes = 0
        for members in groups.values():
            values = [v for v in (metric.get(m["metrics"]) for m in members) if v is not None]
            if values:
                per_instance.append(sum(values) / len(values))
                episodes += len(values)
        mean, low, high = mean_ci(per_instance)
        out.append(
            {
                "label": metric.label,
                "mean": _round(mean),
                "low": _round(low),
                "high": _round(high),
                "instances": len(per_instance),
                "episodes": episodes,
                "lower_is_better": metric.lower_is_better,
            }
        )
    return out


def pass_hat_k(domain: str, rows: Sequence[Row], k_max: int | None = None) -> list[dict[str, Any]]:
    """pass^k for k = 1..(the fewest attempts any instance has), τ-bench's unbiased estimate."""
    succeeded = success_for(domain)
    groups = _by_instance(rows)
    if succeeded is None or not groups:
        return []
    if registry.descriptor(domain).success is None and not any(
        "success" in r["metrics"] or "completed" in r["metrics"] for r in rows
    ):
        return []  # a domain without a notion of success has no pass^k
    counts = [(len(m), sum(1 for r in m if succeeded(r["metrics"]))) for m in groups.values()]
    top = min(n for n, _c in counts)
    if k_max is not None:
        top = min(top, k_max)
    return [
        {
            "k": k,
            "value": _round(100.0 * sum(math.comb(c, k) / math.comb(n, k) for n, c in counts) / len(counts)),
            "instances": len(counts),
            "all_succeeded": sum(1 for n, c in counts if c == n),
        }
        for k in range(1, top + 1)
    ]


def mean_curve(curves: Sequence[Sequence[Sequence[float]]], axis: int, points: int = 60) -> list[tuple[float, float]]:
    """The mean of step curves (``[[time, turns, value], ...]``) against ``axis`` (0 time, 1 turns).

    Each curve holds its value between changes and after it ends (a finished episode keeps its
    final score), so episodes of different lengths average fairly.
    """
    usable = [c for c in curves if c]
    if not usable:
        return []
    end = max(float(c[-1][axis]) for c in usable) or 1.0
    grid = np.linspace(0.0, end, points)
    total = np.zeros_like(grid)
    for curve in usable:
        xs = np.asarray([float(p[axis]) for p in curve])
        ys = np.asarray([float(p[2]) for p in curve])
        index = np.searchsorted(xs, grid, side="right") - 1
        total += np.where(index >= 0, ys[np.clip(index, 0, None)], 0.0)
    return [(float(x), float(y)) for x, y in zip(grid, total / len(usable), strict=True)]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
