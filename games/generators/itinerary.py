"""Generated itinerary briefs (ItineraryBench format) over our own travel world, with the planner's
best plan and its score.

The world is games/content/itinerary/world.json (four towns, daily trains for 12 days). A brief:

- with ``cities`` > 0 and ``constraints`` = 0: an inter-city trip (type 1), ``days`` days in each of
  ``cities`` towns other than the origin, back home at the end;
- with ``cities`` = 0: a day plan (type 2) of ``constraints`` sights in the origin town;
- with both: a combined trip (type 3) to ``constraints`` sights spread over the origin and
  ``cities`` other towns, at least one in each of those towns (as far as ``constraints`` goes);
- ``tightness``: the transport budget is the cheapest plan's cost times 1 + 1.5 × (1 − tightness)
  (1: exactly the cheapest; day plans need no budget). ``minimise_time`` picks the objective
  (day plans always minimise time: their travel is free).

The reference planner (games/planners/itinerary_search.py) is an exhaustive search, exact for
the quantity it minimises: ``optimal_makespan`` is its value (CNY or minutes), ``optimal`` is true
when it finds a plan, ``greedy_makespan`` repeats the value (there is no weaker heuristic), and
``stats.score`` is the plan's score out of 100 under the rules (games.domains.itinerary.tools).
``stats.parallelism`` is the requested time (sight minutes, city days) over the trip's duration.
"""

from __future__ import annotations

import json
import math
import random
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from games.domains.itinerary.samples import Tables, definition_from_sample
from games.domains.itinerary.tools import check_plan
from games.engine.durations import describe_amount
from games.generators.knobs import Knob
from games.importers.itinerary_content import FOLDER, as_sample, read_world
from games.planners.itinerary_search import plan

# What ``optimal_makespan`` measures, for the generator page.
OBJECTIVE = "the exhaustive planner's value: the trip's cost in CNY, or its minutes when the brief minimises time"
# What an instance's stats.actions counts (the generator page's Actions column).
ACTIONS = "the actions of the planner's plan"

KNOBS = (
    Knob("cities", 1, 0, 3, "towns to travel to besides the origin (0: a day plan at home)"),
    Knob("days", 1, 1, 3, "days to spend in each town (type 1) or extra days in the window"),
    Knob("constraints", 0, 0, 6, "sights with a visit length (0 with cities: an inter-city trip)"),
    Knob("tightness", 0.5, 0.0, 1.0, "budget tightness (1: exactly the cheapest plan's cost)"),
    Knob("minimise_time", False, help="ask for the fastest plan instead of the cheapest"),
    Knob("opening_hours", True, help="opening hours count (day plans and combined trips)"),
)
FIRST_DAY = datetime(2024, 5, 1)
DAYS_RUNNING = 12


@lru_cache(maxsize=1)
def _world() -> tuple[Tables, dict[str, list[tuple[str, str]]]]:
    tables = read_world(FOLDER / "world.json")
    raw = json.loads((FOLDER / "world.json").read_text(encoding="utf-8"))
    places = {city: [(name, kind) for name, kind, *_ in data["places"]] for city, data in raw["cities"].items()}
    return tables, places


def _brief(rng: random.Random, knobs: dict[str, Any], budget: float | None) -> tuple[int, dict[str, Any]]:
    _, places = _world()
    towns = sorted(places)
    origin = rng.choice(towns)
    others = rng.sample([t for t in towns if t != origin], knobs["cities"])
    count = knobs["constraints"] or (0 if others else 1)
    kind = 1 if others and not count else 2 if not others else 3
    # A day plan costs nothing to travel, so it always asks for the earliest finish.
    objective = "time" if knobs["minimise_time"] or kind == 2 else "money"
    settings: dict[str, Any] = {"origin_city": origin, "origin_place": f"{origin} Railway Hotel"}
    spots: dict[str, int] = {}
    cities: dict[str, int] = {}
    if kind == 1:
        cities = dict.fromkeys(others, knobs["days"])
        length = sum(cities.values()) + 2
    else:
        sights = {town: [name for name, kind_ in places[town] if kind_ == "spot"] for town in [origin, *others]}
        # every town the knob adds is visited: a sight in each first (two sights could both fall in
        # the origin and a trip with "cities 1" stayed at home for 0 CNY), the rest from any town
        chosen = [rng.choice(sights[town]) for town in others[:count] if sights[town]]
        pool = [name for town in [origin, *others] for name in sights[town] if name not in chosen]
        chosen += rng.sample(pool, min(count - len(chosen), len(pool)))
        spots = {name: rng.choice((30, 45, 60, 90, 120)) for name in chosen}
        length = (1 if kind == 2 else len(others) + 1) + knobs["days"] - 1
        settings.update(check_opening_hours=knobs["opening_hours"], check_meal=False)
    start = FIRST_DAY + timedelta(days=rng.randrange(0, DAYS_RUNNING - length))
    begin = start if kind == 1 else start.replace(hour=7)
    settings.update(
        begin_time=begin.strftime("%Y-%m-%d %H:%M"),
        end_time=(start + timedelta(days=length)).strftime("%Y-%m-%d %H:%M"),
    )
    if budget is not None and kind != 2:
        settings["budget"] = budget
    wants = [f"{d} day{'s' if d > 1 else ''} in {c}" for c, d in cities.items()] + [
        f"{m} minutes at {s}" for s, m in spots.items()
    ]
    question = (
        f"A traveller starts at the {origin} Railway Hotel on {settings['begin_time']} and must be done by "
        f"{settings['end_time']}. They want {', '.join(wants)}."
        + (" They end back in " + origin + "." if kind == 1 else "")
        + (f" The budget for transportation is {budget:g} CNY." if "budget" in settings else "")
        + f" Spend as little {objective} as possible."
    )
    return kind, {"question": question, "settings": settings, "cities": cities, "spots": spots}


def build(rng: random.Random, knobs: dict[str, Any], index: int) -> dict[str, Any]:
    tables, _ = _world()
    for _attempt in range(20):
        state = rng.getstate()
        kind, brief = _brief(rng, knobs, None)
        definition = definition_from_sample(kind, index, as_sample(brief), tables)
        # The budget follows from the cheapest plan of the same brief without one; a brief with no
        # plan at all (no train home inside the window) is drawn again.
        cheapest = plan({**definition, "objective": "money"})
        if not cheapest.feasible or cheapest.value is None:
            continue
        if kind != 2:
            budget = float(math.ceil(cheapest.value * (1 + 1.5 * (1 - knobs["tightness"]))))
            after = rng.getstate()
            rng.setstate(state)  # the same draws, now with the budget
            kind, brief = _brief(rng, knobs, budget)
            rng.setstate(after)
            definition = definition_from_sample(kind, index, as_sample(brief), tables)
        break
    else:
        raise ValueError("no feasible brief in 20 draws; loosen the knobs (fewer cities or days)")
    definition["title"] = f"Generated brief #{index + 1} (type {kind})"
    definition["source"] = {"dataset": "generated", "sample": f"generated-{index + 1}", "settings": brief["settings"]}
    return definition


def show_in(definition: dict[str, Any], value: float) -> str:
    """The planner's value in the brief's own unit (the table read "Optimum 61.0")."""
    if definition.get("objective") == "time":
        return describe_amount(round(value * 60))
    return f"{value:g} CNY"


def evaluate(definition: dict[str, Any], knobs: dict[str, Any], max_seconds: float) -> dict[str, Any]:
    found = plan(definition)
    checked = check_plan(definition, found.actions) if found.feasible else None
    constraints = definition.get("constraints", {})
    requested = sum(s["minutes"] for s in constraints.get("spot_minutes", [])) + 1440 * sum(
        c["days"] for c in constraints.get("city_days", [])
    )
    begin = datetime.strptime(definition["begin"], "%Y-%m-%d %H:%M")
    elapsed = None
    if checked is not None and checked.get("finished_at"):
        finished = datetime.strptime(checked["finished_at"][:16], "%Y-%m-%d %H:%M")
        elapsed = (finished - begin).total_seconds() / 60
    stats = {
        "actions": len(found.actions),
        "parallelism": round(requested / elapsed, 4) if elapsed else None,
        "kind": definition["kind"],
        "cities": len({p["city"] for p in definition["world"]["places"]}),
        "sights": len(constraints.get("spot_minutes", [])),
        "city_days": sum(c["days"] for c in constraints.get("city_days", [])),
        "budget": definition.get("budget"),
        "score": checked["total"] if checked else 0.0,
        "spent": checked.get("spent") if checked else None,
    }
    return {
        "optimal_makespan": found.value,
        "optimal": found.feasible,
        "lower_bound": found.value,
        "greedy_makespan": found.value,
        "solve_seconds": round(found.solve_seconds, 3),
        "status": "OPTIMAL" if found.feasible else f"INFEASIBLE: {found.reason}",
        "stats": stats,
        "plan": found.actions,
    }
