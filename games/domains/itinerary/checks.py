"""Every check of the itinerary rules, each returning a CheckResult whose message names the check
and, when it fails, says how to fix it.

Executability (elementary) checks, one set per action: ``train`` (exists and matches origin,
destination, departure and arrival), ``position``, ``time_order``, ``transfer_duration``.
Constraint checks: ``opening_hours`` and ``rest_hours`` per visit or transfer, and at the end
``meal`` (lunch 12:00-13:00, dinner 18:30-19:30), ``city_days``, ``spot_minutes``,
``return_to_origin``, ``budget`` and ``end_time``.
"""

from __future__ import annotations

from games.domains.itinerary.state import CONSTRAINTS, EXECUTABILITY, CheckResult, ItineraryState, Segment
from games.domains.itinerary.world import DAY, World

REST_FROM, REST_UNTIL = 22 * 60, 7 * 60
MEALS = (("lunch", 12 * 60, 13 * 60), ("dinner", 18 * 60 + 30, 19 * 60 + 30))


def _ok(check: str, subject: str, time: int, message: str, level: str = EXECUTABILITY) -> CheckResult:
    return CheckResult(level, check, subject, True, f"{check}: {message}", time)


def _fail(check: str, subject: str, time: int, message: str, level: str = EXECUTABILITY) -> CheckResult:
    return CheckResult(level, check, subject, False, f"{check} failed: {message}", time)


# -- executability ---------------------------------------------------------------------------------
def train_check(
    world: World, subject: str, origin: str, destination: str, dep: int, arr: int, number: str
) -> CheckResult:
    train = world.trains.get(number) or world.trains.get(number.upper())
    at = dep
    if train is None:
        return _fail(
            "train", subject, at, f"there is no train {number} in the timetable; pick a train listed from {origin}"
        )
    wrong = []
    if train.origin != origin:
        wrong.append(f"it leaves from {train.origin}")
    if train.destination != destination:
        wrong.append(f"it goes to {train.destination}")
    if train.departure != dep:
        wrong.append(f"it departs at {world.clock_text(train.departure)}")
    if train.arrival != arr:
        wrong.append(f"it arrives at {world.clock_text(train.arrival)}")
    if wrong:
        fix = (
            f"write go_to_city({train.origin}, {train.destination}, {world.clock_text(train.departure)}, "
            f"{world.clock_text(train.arrival)}, {train.number}) or choose another train"
        )
        return _fail("train", subject, at, f"train {train.number} does not match: {', '.join(wrong)}; {fix}")
    return _ok("train", subject, at, f"train {train.number} matches the timetable")


def city_position_check(state: ItineraryState, subject: str, city: str) -> CheckResult:
    if city != state.city:
        return _fail(
            "position", subject, state.clock, f"the traveller is in {state.city}, not {city}; start from {state.city}"
        )
    return _ok("position", subject, state.clock, f"the traveller is in {city}")


def place_position_check(state: ItineraryState, subject: str, place: str) -> CheckResult:
    if place != state.place:
        return _fail(
            "position",
            subject,
            state.clock,
            f"the traveller is at {state.place}, not {place}; start from {state.place}",
        )
    return _ok("position", subject, state.clock, f"the traveller is at {place}")


def time_order_check(state: ItineraryState, subject: str, start: int, end: int) -> CheckResult:
    world = state.world
    if start < state.clock:
        return _fail(
            "time_order",
            subject,
            state.clock,
            f"it is already {world.clock_text(state.clock)}; start at or after that time",
        )
    if end <= start:
        return _fail(
            "time_order", subject, state.clock, f"the end {world.clock_text(end)} must come after the start; swap them"
        )
    return _ok("time_order", subject, state.clock, "starts after the previous action and ends after it starts")


def transfer_check(world: World, subject: str, origin: str, destination: str, dep: int, arr: int) -> CheckResult:
    minutes = world.transfers.get((origin, destination))
    if minutes is None:
        city = world.places[origin].city if origin in world.places else "the city"
        return _fail(
            "transfer_duration",
            subject,
            dep,
            f"there is no transfer from {origin} to {destination}; both must be places in {city} "
            "(use go_to_city between cities)",
        )
    if arr - dep != minutes:
        return _fail(
            "transfer_duration",
            subject,
            dep,
            f"the transfer from {origin} to {destination} takes {minutes} minutes, not {arr - dep}; "
            f"arrive at {world.clock_text(dep + minutes)}",
        )
    return _ok("transfer_duration", subject, dep, f"{origin} to {destination} takes {minutes} minutes")


# -- constraints on one stretch of the timeline ----------------------------------------------------
def segment_checks(world: World, segment: Segment, subject: str) -> list[CheckResult]:
    """Opening hours (visits at spots, when the brief checks them) and rest hours (visits at spots
    and transfers, in briefs with rest hours)."""
    results: list[CheckResult] = []
    at_spot = segment.kind == "visit" and not world.places[segment.place].is_hotel
    if at_spot and world.check_opening_hours:
        place = world.places[segment.place]
        midnight = world.midnight_before(segment.start)
        opens, closes = midnight + place.opens * 60, midnight + place.closes * 60
        span = f"{world.clock_text(segment.start)}-{world.clock_text(segment.end)[-5:]}"
        if segment.start >= opens and segment.end <= closes:
            results.append(_ok("opening_hours", subject, segment.start, f"{place.name} is open then", CONSTRAINTS))
        else:
            results.append(
                _fail(
                    "opening_hours",
                    subject,
                    segment.start,
                    f"{place.name} is open {place.opens:02d}:00-{place.closes:02d}:00 but the visit is {span}; "
                    "visit it inside its opening hours on one day",
                    CONSTRAINTS,
                )
            )
    if world.rest_hours and (at_spot or segment.kind == "transfer"):
        midnight = world.midnight_before(segment.start)
        inside = segment.start >= midnight + REST_UNTIL and segment.end <= midnight + REST_FROM
        what = "visit" if segment.kind == "visit" else "transfer"
        if inside:
            results.append(
                _ok("rest_hours", subject, segment.start, f"the {what} is between 07:00 and 22:00", CONSTRAINTS)
            )
        else:
            results.append(
                _fail(
                    "rest_hours",
                    subject,
                    segment.start,
                    f"the {what} {world.clock_text(segment.start)}-{world.clock_text(segment.end)[-5:]} falls in the "
                    "rest hours 22:00-07:00; do it between 07:00 and 22:00 and rest (stay_in) overnight",
                    CONSTRAINTS,
                )
            )
    return results


def meal_window(name: str) -> str:
    """ "12:00-13:00" for lunch."""
    start, finish = next((b, e) for n, b, e in MEALS if n == name)
    return f"{start // 60:02d}:{start % 60:02d}-{finish // 60:02d}:{finish % 60:02d}"


def meal_clash(world: World, segment: Segment) -> str | None:
    """The meal a visit at a spot or a transfer overlaps, if any (meals checked briefs only)."""
    if not world.check_meals:
        return None
    if segment.kind == "transfer" or (segment.kind == "visit" and not world.places[segment.place].is_hotel):
        day = world.midnight_before(segment.start)
        while day < segment.end:
            for name, start, end in MEALS:
                if segment.start < day + end and day + start < segment.end:
                    return name
            day += DAY
    return None


# -- constraints on the whole trip -----------------------------------------------------------------
def stay_days(world: World, arrived: int, left: int) -> int:
    """Whole days a stay from ``arrived`` to ``left`` counts: every 24 hours is a day; in briefs
    that say so, arriving before noon adds half a day (the published simulator's rule)."""
    minutes = left - arrived
    if world.one_day and world.time_of_day(arrived) < 12 * 60:
        minutes += 12 * 60
    return max(0, minutes // DAY)


def next_wanted_day(state: ItineraryState) -> int | None:
    """When the open stay in the traveller's city counts one more of the days the brief wants
    there (``stay_days``); None where it wants none there, has them all, or no stay has begun."""
    world = state.world
    wanted = dict(world.city_days).get(state.city, 0)
    if not wanted or not state.segments:
        return None
    if state.days_in(state.city) + stay_days(world, state.arrived, state.clock) >= wanted:
        return None
    bonus = 12 * 60 if world.one_day and world.time_of_day(state.arrived) < 12 * 60 else 0
    return state.arrived + (stay_days(world, state.arrived, state.clock) + 1) * DAY - bonus


def final_checks(state: ItineraryState) -> list[CheckResult]:
    world = state.world
    end = state.last_end
    results: list[CheckResult] = []
    if world.check_meals:
        for name, _start, _finish in MEALS:
            clash = next(
                (s for s in state.segments if meal_clash(world, s) == name),
                None,
            )
            window = meal_window(name)
            if clash is None:
                results.append(_ok("meal", name, end, f"{window} is kept free for {name} every day", CONSTRAINTS))
            else:
                results.append(
                    _fail(
                        "meal",
                        name,
                        end,
                        f"the {clash.kind} {clash.action or clash.place} overlaps {name} ({window}); "
                        f"keep {window} free of visits and transfers (stay_in over it)",
                        CONSTRAINTS,
                    )
                )
    counted = dict(state.days)
    if state.segments:
        counted[state.city] = counted.get(state.city, 0) + stay_days(world, state.arrived, end)
    for city, days in world.city_days:
        got = counted.get(city, 0)
        if got >= days:
            results.append(_ok("city_days", city, end, f"{got} day(s) in {city} (needs {days})", CONSTRAINTS))
        else:
            results.append(
                _fail(
                    "city_days",
                    city,
                    end,
                    f"only {got} of {days} day(s) in {city}; stay there {days} x 24 hours in one go before leaving",
                    CONSTRAINTS,
                )
            )
    done = state.spot_minutes()
    for spot, minutes in world.spot_minutes:
        got = done.get(spot, 0)
        if got >= minutes:
            results.append(_ok("spot_minutes", spot, end, f"{got} of {minutes} minutes at {spot}", CONSTRAINTS))
        else:
            results.append(
                _fail(
                    "spot_minutes",
                    spot,
                    end,
                    f"only {got} of {minutes} minutes at {spot}; visit it {minutes - got} minutes more",
                    CONSTRAINTS,
                )
            )
    if world.return_to_origin:
        if state.city == world.origin_city:
            results.append(_ok("return_to_origin", world.origin_city, end, "back where the trip began", CONSTRAINTS))
        else:
            results.append(
                _fail(
                    "return_to_origin",
                    world.origin_city,
                    end,
                    f"the trip ends in {state.city}; take a train back to {world.origin_city}",
                    CONSTRAINTS,
                )
            )
    if world.budget is not None:
        if state.spent <= world.budget + 1e-9:
            results.append(
                _ok("budget", "money", end, f"spent {state.spent:g} of the {world.budget:g} budget", CONSTRAINTS)
            )
        else:
            results.append(
                _fail(
                    "budget",
                    "money",
                    end,
                    f"spent {state.spent:g}, over the {world.budget:g} budget; choose cheaper trains",
                    CONSTRAINTS,
                )
            )
    if end <= world.end:
        results.append(_ok("end_time", "time", end, f"done by {world.clock_text(end)}", CONSTRAINTS))
    else:
        results.append(
            _fail(
                "end_time",
                "time",
                end,
                f"the trip ends at {world.clock_text(end)}, after {world.clock_text(world.end)}; finish earlier",
                CONSTRAINTS,
            )
        )
    return results
