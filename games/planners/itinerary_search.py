"""Reference planner for the itinerary domain: the cheapest or fastest plan meeting every constraint.

The search (exact for the quantities it orders by; deterministic):

1. **City order.** Every order of the cities with a requirement (days to spend, sights to see) is
   tried; the traveller starts at the origin and, where the brief says so, ends back there.
2. **Trains.** Between consecutive cities every direct train that leaves after the traveller is
   ready is tried; the labels (ready time, money spent) are kept on a Pareto front, so a slower
   train survives only when it is cheaper.
3. **Inside a city.** The sights are ordered by a dynamic programme over subsets (Held-Karp): for
   each (sights done, last sight) only the earliest finish is kept, which is exact because waiting
   (``stay_in``) is always allowed and costs nothing. Each transfer and visit is placed at the
   earliest moment the brief allows (opening hours, 07:00-22:00 outside rest hours, meals kept
   free); a visit is split around a meal or a closing time and resumed when allowed.

The plan is written in the action grammar, with explicit ``stay_in`` for every wait so no gap is
taken for a visit. Running time is measured and reported (``solve_seconds``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import permutations
from typing import Any

from games.domains.itinerary import actions as A
from games.domains.itinerary.checks import MEALS, REST_FROM, REST_UNTIL, stay_days
from games.domains.itinerary.state import ItineraryState
from games.domains.itinerary.world import DAY, World

Interval = tuple[int, int]


@dataclass(frozen=True)
class PlanResult:
    feasible: bool
    actions: list[str]
    objective: str
    value: float | None
    solve_seconds: float
    reason: str = ""
    explored: int = 0


@dataclass(frozen=True)
class _Label:
    ready: int  # when the traveller may leave the current city
    cost: float
    last_end: int
    actions: tuple[str, ...]


@dataclass
class _Search:
    world: World
    explored: int = 0
    tour_cache: dict[tuple[str, str, int], tuple[int, tuple[str, ...]] | None] = field(default_factory=dict)


# -- allowed time inside a day ---------------------------------------------------------------------
def _subtract(intervals: list[Interval], cut: Interval) -> list[Interval]:
    out = []
    for a, b in intervals:
        if cut[1] <= a or b <= cut[0]:
            out.append((a, b))
            continue
        if a < cut[0]:
            out.append((a, cut[0]))
        if cut[1] < b:
            out.append((cut[1], b))
    return out


@lru_cache(maxsize=4096)
def _windows(rest_hours: bool, meals: bool, opens: int | None, closes: int | None) -> tuple[Interval, ...]:
    """Minutes of the day when a visit (with opening hours) or a transfer (without) may happen."""
    start, end = 0, DAY
    if opens is not None and closes is not None:
        start, end = max(start, opens * 60), min(end, closes * 60)
    if rest_hours:
        start, end = max(start, REST_UNTIL), min(end, REST_FROM)
    windows = [(start, end)] if start < end else []
    if meals:
        for _name, meal_start, meal_end in MEALS:
            windows = _subtract(windows, (meal_start, meal_end))
    return tuple(windows)


def _day_windows(world: World, opens: int | None, closes: int | None) -> tuple[Interval, ...]:
    return _windows(world.rest_hours, world.check_meals, opens, closes)


def _windows_from(world: World, windows: tuple[Interval, ...], t: int) -> Iterator[Interval]:
    """Allowed absolute intervals (clipped to start at ``t``) in time order, until the trip's end."""
    if not windows:
        return
    day = world.midnight_before(t)
    while day <= world.end:
        for a, b in windows:
            lo, hi = max(day + a, t), day + b
            if lo < hi:
                yield lo, hi
        day += DAY


# -- one city --------------------------------------------------------------------------------------
def _wait(world: World, city: str, start: int, end: int, out: list[str]) -> None:
    if end > start:
        out.append(A.stay_in(city, world.clock_text(start), world.clock_text(end)))


def _move_and_visit(
    world: World, city: str, place: str, t: int, spot: str, minutes: int, out: list[str] | None
) -> int | None:
    """Go from ``place`` to ``spot`` and visit it ``minutes``; the finish time (None: not by the end)."""
    clock = world.clock_text
    if place != spot:
        duration = world.transfers.get((place, spot))
        if duration is None:
            return None
        for lo, hi in _windows_from(world, _day_windows(world, None, None), t):
            if hi - lo >= duration:
                break
        else:
            return None
        if out is not None:
            _wait(world, city, t, lo, out)
            out.append(A.go_to_place(place, spot, clock(lo), clock(lo + duration)))
        t = lo + duration
    target = world.places[spot]
    opening = (target.opens, target.closes) if world.check_opening_hours else (None, None)
    left = minutes
    for lo, hi in _windows_from(world, _day_windows(world, *opening), t):
        stop = min(hi, lo + left)
        if out is not None:
            _wait(world, city, t, lo, out)
            out.append(A.visit(spot, clock(lo), clock(stop)))
        left -= stop - lo
        t = stop
        if left <= 0:
            break
    if left > 0 or t > world.end:
        return None
    return t


def _tour(search: _Search, city: str, start_place: str, start: int) -> tuple[int, tuple[str, ...]] | None:
    """Earliest finish of all the city's required visits from ``start_place`` at ``start``."""
    key = (city, start_place, start)
    if key in search.tour_cache:
        return search.tour_cache[key]
    world = search.world
    spots = [(s, m) for s, m in world.spot_minutes if world.places[s].city == city]
    if not spots:
        search.tour_cache[key] = (start, ())
        return search.tour_cache[key]
    n = len(spots)
    # best[(mask, last)] = (finish, previous (mask, last)); last = -1 is the start place.
    best: dict[tuple[int, int], tuple[int, tuple[int, int] | None]] = {(0, -1): (start, None)}
    for mask in range(1 << n):
        for last in range(-1, n):
            entry = best.get((mask, last))
            if entry is None:
                continue
            t, _ = entry
            place = start_place if last < 0 else spots[last][0]
            for nxt in range(n):
                if mask >> nxt & 1:
                    continue
                search.explored += 1
                finish = _move_and_visit(world, city, place, t, spots[nxt][0], spots[nxt][1], None)
                if finish is None:
                    continue
                key2 = (mask | 1 << nxt, nxt)
                if key2 not in best or finish < best[key2][0]:
                    best[key2] = (finish, (mask, last))
    full = (1 << n) - 1
    ends = sorted((best[(full, last)][0], last) for last in range(n) if (full, last) in best)
    if not ends:
        search.tour_cache[key] = None
        return None
    # Rebuild the order, then write the actions by replaying it.
    order: list[int] = []
    node: tuple[int, int] | None = (full, ends[0][1])
    while node is not None and node[1] >= 0:
        order.append(node[1])
        node = best[node][1]
    order.reverse()
    out: list[str] = []
    t, place = start, start_place
    for index in order:
        spot, minutes = spots[index]
        finish = _move_and_visit(world, city, place, t, spot, minutes, out)
        assert finish is not None
        t, place = finish, spot
    result = (t, tuple(out))
    search.tour_cache[key] = result
    return result


def _ready_after(
    search: _Search, city: str, place: str, arrival: int, arrived: int | None = None
) -> tuple[int, int, tuple[str, ...]] | None:
    """(ready to leave, end of last visit, actions) after arriving in ``city`` at ``arrival``
    (``arrived``: when the stay began, if earlier than ``arrival``)."""
    world = search.world
    tour = _tour(search, city, place, arrival)
    if tour is None:
        return None
    finish, actions = tour
    ready = finish
    days = dict(world.city_days).get(city, 0)
    began = arrival if arrived is None else arrived
    if days:
        bonus = 12 * 60 if world.one_day and world.time_of_day(began) < 12 * 60 else 0
        ready = max(ready, began + days * DAY - bonus)
        while stay_days(world, began, ready) < days:  # guard the rounding of the published rule
            ready += 1
    return ready, finish, actions


def _pareto(labels: Sequence[_Label]) -> list[_Label]:
    front: list[_Label] = []
    for label in sorted(labels, key=lambda x: (x.ready, x.cost, x.last_end)):
        if not front or label.cost < min(f.cost for f in front) - 1e-9:
            front.append(label)
    return front


# -- whole trip ------------------------------------------------------------------------------------
def _stops(world: World) -> list[str]:
    cities = [c for c, _ in world.city_days]
    cities += [world.places[s].city for s, _ in world.spot_minutes]
    return list(dict.fromkeys(cities))


def _go(search: _Search, labels: list[_Label], here: str, there: str, stay_after: bool) -> list[_Label]:
    """Take every useful train from ``here`` to ``there`` after each label, then do ``there``'s work."""
    world = search.world
    budget = world.budget
    rides: list[tuple[int, float, _Label, Any]] = []
    for label in labels:
        for train in world.trains_from.get(here, ()):
            if train.destination != there or train.departure < label.ready or train.arrival > world.end:
                continue
            cost = label.cost + train.price
            if budget is not None and cost > budget + 1e-9:
                continue
            rides.append((train.arrival, cost, label, train))
    # Arriving earlier never hurts (waiting is free), so a later and no cheaper ride is dropped
    # before the costly in-city search, except where the arrive-before-noon rule makes a later
    # arrival count more.
    if not (world.one_day and dict(world.city_days).get(there)):
        kept, cheapest = [], float("inf")
        for ride in sorted(rides, key=lambda r: (r[0], r[1], r[3].number)):
            if ride[1] < cheapest - 1e-9:
                kept.append(ride)
                cheapest = ride[1]
        rides = kept
    out: list[_Label] = []
    for arrival, cost, label, train in rides:
        search.explored += 1
        ride_text = A.go_to_city(
            here, there, world.clock_text(train.departure), world.clock_text(arrival), train.number
        )
        if not stay_after:
            out.append(_Label(arrival, cost, arrival, (*label.actions, ride_text)))
            continue
        after = _ready_after(search, there, world.railway_hotel(there), arrival)
        if after is None:
            continue
        ready, finish, visits = after
        out.append(_Label(ready, cost, max(finish, arrival), (*label.actions, ride_text, *visits)))
    return _pareto(out)


@dataclass(frozen=True)
class Start:
    """Where the search starts: the brief's beginning, or a game in progress."""

    city: str
    place: str
    clock: int = 0
    arrived: int = 0
    spent: float = 0.0


def plan(definition: Mapping[str, Any]) -> PlanResult:
    """The best plan for a scenario definition (see the module docstring)."""
    world = World.from_definition(definition)
    return _plan(world, Start(world.origin_city, world.origin_place))


def plan_from_state(state: ItineraryState) -> PlanResult:
    """The best plan for what is left of a game in progress (the NPC travel assistant's view):
    the remaining sight minutes and city days, from where and when the traveller is now."""
    world = state.world
    done = state.spot_minutes()
    spots = tuple((s, m - done.get(s, 0)) for s, m in world.spot_minutes if m > done.get(s, 0))
    days = tuple((c, d - state.days_in(c)) for c, d in world.city_days if d > state.days_in(c))
    remaining = replace(world, spot_minutes=spots, city_days=days)
    return _plan(remaining, Start(state.city, state.place, state.clock, state.arrived, state.spent))


def _plan(world: World, start: Start) -> PlanResult:
    started = time.perf_counter()
    search = _Search(world)
    stops = _stops(world)
    finals: list[_Label] = []
    reason = "no order of the cities fits the window and the budget"
    for order in permutations(stops):
        labels: list[_Label]
        here = start.city
        rest = list(order)
        if rest and rest[0] == start.city:
            after = _ready_after(search, here, start.place, start.clock, start.arrived)
            if after is None:
                reason = f"the visits in {here} do not fit before the end time"
                continue
            ready, finish, visits = after
            labels = [_Label(ready, start.spent, finish, visits)]
            rest = rest[1:]
        else:
            labels = [_Label(start.clock, start.spent, start.clock, ())]
        for city in rest:
            labels = _go(search, labels, here, city, stay_after=True)
            here = city
            if not labels:
                reason = f"no train plan reaches and finishes {city} in time and within budget"
                break
        if labels and world.return_to_origin and here != world.origin_city:
            labels = _go(search, labels, here, world.origin_city, stay_after=False)
            if not labels:
                reason = f"no train back to {world.origin_city} in time and within budget"
        finals.extend(label for label in labels if label.last_end <= world.end and label.actions)
    elapsed = time.perf_counter() - started
    if not finals:
        return PlanResult(False, [], world.objective, None, elapsed, reason, search.explored)
    if world.objective == "money":
        best = min(finals, key=lambda x: (round(x.cost, 6), x.last_end, x.actions))
        value = best.cost
    else:
        best = min(finals, key=lambda x: (x.last_end, round(x.cost, 6), x.actions))
        value = float(best.last_end)
    return PlanResult(True, list(best.actions), world.objective, value, elapsed, "", search.explored)
