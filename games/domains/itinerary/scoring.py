"""The three-level ItineraryBench score (SPEC section 5), 100 points.

- executability, 60 x passed / all elementary checks (train, position, time_order,
  transfer_duration), counting the checks of rejected actions too;
- constraints, 20 x passed / all constraint checks (opening_hours, rest_hours, meal, city_days,
  spot_minutes, return_to_origin, budget, end_time), counted only when executability is perfect;
- efficiency, 20 points for the quantity the **brief** asks to minimise (money spent, or minutes
  from the begin to the end of the last action): full at or below the range's min, none at or above
  its max, linear in between, better plans scoring higher (the published simulator had the slope
  backwards); counted only when the constraints are perfect.

The range is the sample's published one when it is for the brief's quantity; otherwise (type-3
samples publish the other quantity's range) the importer derives one with ``derived_range``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import TYPE_CHECKING, Any

from games.domains.itinerary.state import CONSTRAINTS, EXECUTABILITY, CheckResult

if TYPE_CHECKING:
    from games.domains.itinerary.state import ItineraryState


def efficiency_points(value: float, low: float, high: float) -> float:
    """20 at or below ``low``, 0 at or above ``high``, linear in between (lower is better)."""
    if value <= low:
        return 20.0
    if value >= high:
        return 0.0
    return 20.0 * (high - value) / (high - low)


def quantity(state: ItineraryState) -> float:
    return state.spent if state.world.objective == "money" else float(state.last_end)


def all_checks(state: ItineraryState) -> list[CheckResult]:
    from games.domains.itinerary.checks import final_checks

    return [*state.checks, *final_checks(state)]


def score(state: ItineraryState) -> dict[str, Any]:
    world = state.world
    checks = all_checks(state)
    elementary = [c for c in checks if c.level == EXECUTABILITY]
    constraint = [c for c in checks if c.level == CONSTRAINTS]
    e_pass = sum(c.passed for c in elementary)
    c_pass = sum(c.passed for c in constraint)
    executability = 60.0 * e_pass / len(elementary) if elementary else 0.0
    executable = bool(elementary) and e_pass == len(elementary)
    constraints = 20.0 * c_pass / len(constraint) if executable and constraint else 0.0
    satisfied = executable and c_pass == len(constraint)
    value = quantity(state)
    low = float(world.efficiency.get("min", 0.0))
    high = float(world.efficiency.get("max", 0.0))
    efficiency = efficiency_points(value, low, high) if satisfied else 0.0
    return {
        "executability": round(executability, 4),
        "constraints": round(constraints, 4),
        "efficiency": round(efficiency, 4),
        "total": round(executability + constraints + efficiency, 4),
        "failed_checks": [c.message for c in checks if not c.passed],
        "checks": [c.to_json() for c in checks],
        "objective": {
            "quantity": world.objective,
            "value": value,
            "unit": "CNY" if world.objective == "money" else "minute",
            "min": low,
            "max": high,
            "range_source": world.efficiency.get("source", ""),
        },
        "spent": state.spent,
        "finished_at": world.clock_text(state.last_end),
        "over": state.over,
    }


def derived_range(
    objective: str,
    *,
    origin: str,
    cities: Sequence[str],
    spot_minutes: int,
    window: int,
    trains: Sequence[Sequence[Any]],
    to_minutes: Any,
    round_trip: bool = False,
    stay_minutes: int = 0,
) -> dict[str, Any]:
    """A range for the brief's quantity when the sample publishes only the other one.

    Over every order of the cities to reach (origin first, back home when ``round_trip``): money runs from the
    cheapest fares on the cheapest order (min) to the dearest fares on that order (max); time runs
    from a lower bound (fastest trains plus every required visit minute) to the whole window.
    """
    fares: dict[tuple[str, str], list[float]] = {}
    durations: dict[tuple[str, str], int] = {}
    for _number, start, stop, dep, arr, price in trains:
        fares.setdefault((start, stop), []).append(float(price))
        minutes = to_minutes(arr) - to_minutes(dep)
        durations[(start, stop)] = min(durations.get((start, stop), minutes), minutes)
    away = [c for c in dict.fromkeys(cities) if c != origin]
    best: tuple[float, float, int] | None = None
    for order in permutations(away):
        stops = (*order, origin) if round_trip and order else order
        hops = list(zip((origin, *stops), stops, strict=False))
        if any((a, b) not in fares for a, b in hops):
            continue
        cheap = sum(min(fares[h]) for h in hops)
        dear = sum(max(fares[h]) for h in hops)
        fast = sum(durations[h] for h in hops)
        candidate = (cheap, dear, fast)
        if best is None or candidate < best:
            best = candidate
    cheap, dear, fast = best or (0.0, 0.0, 0)
    if objective == "money":
        return {"quantity": "money", "min": cheap, "max": max(dear, cheap), "unit": "CNY", "source": "derived"}
    low = fast + spot_minutes + stay_minutes
    return {"quantity": "time", "min": low, "max": max(window, low), "unit": "minute", "source": "derived"}


def published_range(objective: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The sample's own range for the brief's quantity (times published in seconds -> minutes)."""
    if objective == "money":
        return {
            "quantity": "money",
            "min": float(settings["money_min"]),
            "max": float(settings["money_max"]),
            "unit": "CNY",
            "source": "published",
        }
    return {
        "quantity": "time",
        "min": float(settings["time_min"]) / 60,
        "max": float(settings["time_max"]) / 60,
        "unit": "minute",
        "source": "published",
    }
