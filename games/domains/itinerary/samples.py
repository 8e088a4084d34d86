"""Turning one published ItineraryBench sample into our scenario definition (pure; no file I/O).

The definition is self-contained: the brief's cities (the origin and every city it names, by
constraint or by the sights' cities), their places and transfers, and the trains between them
inside the trip window. Known quirks of the published data, handled here:

- type-2 samples have no ``limit`` (the objective is time);
- type-3 samples publish the efficiency range of the quantity the question does **not** ask to
  minimise; the objective follows the question, and the range is derived (``scoring.derived_range``);
- type-3 budgets are stated in the question only (the simulator setting is 99999) and are read
  from it; type-1 money samples have a budget in the settings that the question does not state:
  the definition keeps it and the observation shows it;
- the question's "free to travel from 2023.7.1 to 2023.7.20" can be wider than the simulator's
  ``begin_time``/``end_time``; the simulator's window is the one played and shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games.domains.itinerary.checks import MEALS, REST_FROM, REST_UNTIL
from games.domains.itinerary.scoring import derived_range, published_range
from games.domains.itinerary.world import DAY, TIME_FORMAT, parse_clock

NO_BUDGET = 99999
KINDS = {1: "inter-city", 2: "day-plan", 3: "combined"}
_BUDGET = re.compile(r"budget for transportation is ([0-9]+(?:\.[0-9]+)?)")


@dataclass(frozen=True)
class Tables:
    """The three travel tables as rows (the shape of travel.db)."""

    places: Sequence[tuple[str, str, str, int, int]]  # name, city, type, opens, closes
    transfers: Sequence[tuple[str, str, int, str]]  # origin, destination, minutes, city
    trains: Sequence[tuple[str, str, str, str, str, int, float]]  # number, origin, dest, dep, arr, minutes, price


def sample_slug(kind: int, index: int) -> str:
    return f"itinerarybench/type{kind}-{index}"


def parse_sample_name(name: str) -> tuple[int, int]:
    """``type2:5`` -> (2, 5); raises ValueError saying the expected form."""
    match = re.fullmatch(r"\s*type([123])[:\-](\d+)\s*", name or "")
    if not match:
        raise ValueError(f"{name!r} is not a sample name; write typeN:INDEX, e.g. type2:5 (N is 1, 2 or 3)")
    return int(match.group(1)), int(match.group(2))


def objective_of(kind: int, sample: Mapping[str, Any]) -> str:
    """The quantity the brief's text asks to minimise."""
    question = sample["question"]
    if "little money" in question:
        return "money"
    if "little time" in question:
        return "time"
    settings = sample["demands"]["TravelSimulator"]
    return str(settings.get("limit", "time"))


def _clock(text: str) -> str:
    return parse_clock(text).strftime(TIME_FORMAT)


def definition_from_sample(kind: int, index: int, sample: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
    settings = sample["demands"]["TravelSimulator"]
    constraints = sample["demands"].get("Constraints") or {}
    city_days = [{"city": c["city"], "days": int(c["days"])} for c in constraints.get("CityDurationConstraint", [])]
    spot_minutes = [
        {"spot": s["spot"], "minutes": int(s["minutes"])} for s in constraints.get("SpotDurationConstraint", [])
    ]
    city_of = {name: city for name, city, *_ in tables.places}
    origin = settings["origin_city"]
    unknown = [s["spot"] for s in spot_minutes if s["spot"] not in city_of]
    if unknown:
        raise ValueError(f"sample type{kind}:{index} names sights missing from the place table: {unknown}")
    cities = list(dict.fromkeys([origin, *(c["city"] for c in city_days), *(city_of[s["spot"]] for s in spot_minutes)]))
    begin, end = _clock(settings["begin_time"]), _clock(settings["end_time"])
    begin_at, end_at = parse_clock(begin), parse_clock(end)

    budget: float | None = float(settings.get("budget", NO_BUDGET))
    if kind == 3 and settings.get("set_budget"):
        stated = _BUDGET.search(sample["question"])
        budget = float(stated.group(1)) if stated else None
    if budget is not None and budget >= NO_BUDGET:
        budget = None

    places = [
        {"name": name, "city": city, "kind": kind_, "opens": int(opens), "closes": int(closes)}
        for name, city, kind_, opens, closes in tables.places
        if city in cities
    ]
    place_names = {p["name"] for p in places}
    transfers = sorted(
        [a, b, int(minutes)] for a, b, minutes, _city in tables.transfers if a in place_names and b in place_names
    )
    # Timetable texts sort as times ("YYYY-MM-DD HH:MM[:SS]"), so the window is a string comparison.
    trains = sorted(
        [number, start, stop, dep[:16], arr[:16], float(price)]
        for number, start, stop, dep, arr, _minutes, price in tables.trains
        if start in cities and stop in cities and dep[:16] >= begin and arr[:16] <= end
    )
    objective = objective_of(kind, sample)
    limit = str(settings.get("limit", "time"))
    range_keys = ("money_min", "money_max") if objective == "money" else ("time_min", "time_max")
    if limit == objective and all(key in settings for key in range_keys):
        efficiency = published_range(objective, settings)
        if objective == "time" and kind != 1:
            meals = bool(settings.get("check_meal", False))
            efficiency = _lift_to_rest_bound(efficiency, begin_at, spot_minutes, transfers, meals)
    else:

        def to_minutes(text: str) -> int:
            return int((parse_clock(text) - begin_at).total_seconds() // 60)

        efficiency = derived_range(
            objective,
            origin=origin,
            cities=cities,
            spot_minutes=sum(s["minutes"] for s in spot_minutes),
            window=int((end_at - begin_at).total_seconds() // 60),
            trains=trains,
            to_minutes=to_minutes,
            round_trip=kind == 1,
            stay_minutes=sum(c["days"] for c in city_days) * 24 * 60,
        )
    return {
        "format": "itinerary-v1",
        "kind": KINDS[kind],
        "brief": sample["question"].strip(),
        "begin": begin,
        "end": end,
        "origin_city": origin,
        "origin_place": settings.get("origin_place") or f"{origin} Railway Hotel",
        "budget": budget,
        "objective": objective,
        "check_opening_hours": bool(settings.get("check_opening_hours", False)),
        "check_meals": bool(settings.get("check_meal", False)),
        # The published simulator checks rest hours in every sample that is not type 1.
        "rest_hours": kind != 1,
        "one_day": bool(settings.get("one_day", 0)),
        "return_to_origin": kind == 1,
        "constraints": {"city_days": city_days, "spot_minutes": spot_minutes},
        "efficiency": efficiency,
        "world": {"places": places, "transfers": transfers, "trains": trains},
        "source": {"dataset": "itinerarybench", "sample": f"type{kind}:{index}", "settings": dict(settings)},
    }


def rest_lower_bound(begin_at: datetime, minutes_needed: int, meals: bool = False) -> int:
    """The earliest minute (since begin) by which ``minutes_needed`` of going out can be done when
    going out is allowed only 07:00-22:00 (and, with meals, not 12:00-13:00 or 18:30-19:30)."""
    closed = [(0, REST_UNTIL), (REST_FROM, DAY)]
    if meals:
        closed += [(start, end) for _name, start, end in MEALS]
    start = begin_at.hour * 60 + begin_at.minute
    t, left = 0, minutes_needed
    while left > 0:
        day_minute = (start + t) % DAY
        blocked = next((end for begin, end in closed if begin <= day_minute < end), None)
        if blocked is not None:
            t += blocked - day_minute
            continue
        next_closed = min(begin for begin, _end in closed if begin > day_minute)
        step = min(left, next_closed - day_minute)
        t += step
        left -= step
    return t


def _lift_to_rest_bound(
    efficiency: dict[str, Any],
    begin_at: datetime,
    spots: list[dict[str, Any]],
    transfers: list[list[Any]],
    meals: bool,
) -> dict[str, Any]:
    """Published day-plan time ranges come from a simulator that let visits run through the night
    (its rest check looked only at a visit's start and end); where the range lies below what any
    plan keeping the rest hours can reach, move it up by the difference, keeping its width."""
    into: dict[str, int] = {}
    for _origin, destination, minutes in transfers:
        into[destination] = min(into.get(destination, minutes), minutes)
    needed = sum(s["minutes"] + into.get(s["spot"], 0) for s in spots)
    bound = rest_lower_bound(begin_at, needed, meals)
    if efficiency["min"] >= bound:
        return efficiency
    shift = bound - efficiency["min"]
    return {
        **efficiency,
        "min": efficiency["min"] + shift,
        "max": efficiency["max"] + shift,
        "source": "published, lifted to the rest-hours bound",
        "published": {"min": efficiency["min"], "max": efficiency["max"]},
    }


def title_of(kind: int, index: int, definition: Mapping[str, Any]) -> str:
    cities = sorted({p["city"] for p in definition["world"]["places"]} - {definition["origin_city"]})
    where = ", ".join(cities) if cities else definition["origin_city"]
    return f"ItineraryBench type {kind} #{index}: from {definition['origin_city']}" + (
        f" to {where}" if cities else f" in {where}"
    )


def iter_definitions(
    samples: Mapping[int, Sequence[Mapping[str, Any]]], tables: Tables
) -> Iterable[tuple[int, int, dict[str, Any]]]:
    for kind in sorted(samples):
        for index, sample in enumerate(samples[kind]):
            yield kind, index, definition_from_sample(kind, index, sample, tables)


def window_days(definition: Mapping[str, Any]) -> float:
    begin = datetime.strptime(definition["begin"], TIME_FORMAT)
    end = datetime.strptime(definition["end"], TIME_FORMAT)
    return (end - begin).total_seconds() / 86400
