"""Itinerary actions that mean "now": the server fills in the traveller's current time.

    take train G12 to Seaport         -> go_to_city(here, Seaport, G12's departure, arrival, G12)
    go to Maritime Museum             -> go_to_place(here, Maritime Museum, now, now + transfer)
    visit Maritime Museum for 90 minutes / visit Maritime Museum until 11:30
    wait until 10:00                  -> stay_in(this city, now, 10:00)

A time of day means its next occurrence (up to 18 hours ahead; one that passed in the last 6 hours
is "already past"); ``YYYY-MM-DD HH:MM`` is accepted too. A phrase that no longer fits the world
(the train has left, the traveller is elsewhere, the time is past) is refused with ``not_now``
feedback and counts against nothing: it is a button pressed late, not a planning error. The
fully timed forms of ``actions.py`` stay accepted (and scored) for planning agents.

``menu(state)`` is the list the browser and ``legal_actions`` offer: only visits and transfers that
keep the opening, rest and meal hours, the next trains from here, and waits to useful moments.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from games.domains.itinerary.actions import SYNTAX, Action, ActionSyntaxError
from games.domains.itinerary.checks import MEALS, REST_FROM, REST_UNTIL, next_wanted_day
from games.domains.itinerary.world import DAY

if TYPE_CHECKING:
    from games.domains.itinerary.state import ItineraryState
    from games.domains.itinerary.world import World

TRAINS_OFFERED = 8
WAITS_OFFERED = 4
_MINUTES = r"(\d+)\s*(?:minutes?|mins?|m)?"
_TRAIN = re.compile(r"^take\s+(?:the\s+)?train\s+(\S+)(?:\s+to\s+(.+))?$", re.I)
_GO = re.compile(r"^go\s+to\s+(.+)$", re.I)
_VISIT_FOR = re.compile(rf"^visit\s+(.+?)\s+for\s+{_MINUTES}$", re.I)
_VISIT_UNTIL = re.compile(r"^visit\s+(.+?)\s+until\s+(.+)$", re.I)
_WAIT_UNTIL = re.compile(r"^(?:wait|stay)\s+until\s+(.+)$", re.I)
_WAIT_FOR = re.compile(rf"^(?:wait|stay)\s+(?:for\s+)?{_MINUTES}$", re.I)
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})$")
PHRASES = "take train T to City; go to Place; visit Place for N minutes; visit Place until HH:MM; wait until HH:MM"


class NotNow(ValueError):
    """A phrase that does not fit the world as it is now; the message says what does."""


def is_phrase(text: str) -> bool:
    return "(" not in text


def resolve(state: ItineraryState, text: str) -> Action:
    """The fully timed action a phrase means at the traveller's current time (raises NotNow)."""
    world, now = state.world, state.clock
    text = " ".join(text.split()).rstrip(".")
    if match := _TRAIN.match(text):
        return _train(state, match.group(1).upper(), match.group(2))
    if match := _GO.match(text):
        destination = world.canonical(match.group(1))
        minutes = world.transfers.get((state.place, destination))
        if minutes is None:
            here = ", ".join(b for (a, b) in world.transfers if a == state.place) or "nowhere"
            hint = " (to reach another city, take a train)" if destination in world.cities else ""
            raise NotNow(f"there is no way from {state.place} to {destination}{hint}; from here you can go to {here}")
        return Action("go_to_place", (state.place, destination, world.clock_text(now), world.clock_text(now + minutes)))
    if match := _VISIT_FOR.match(text):
        place = _here(state, match.group(1))
        return Action("visit", (place, world.clock_text(now), world.clock_text(now + int(match.group(2)))))
    if match := _VISIT_UNTIL.match(text):
        place = _here(state, match.group(1))
        return Action("visit", (place, world.clock_text(now), world.clock_text(_until(world, now, match.group(2)))))
    if match := _WAIT_UNTIL.match(text):
        until = _until(world, now, match.group(1))
        return Action("stay_in", (state.city, world.clock_text(now), world.clock_text(until)))
    if match := _WAIT_FOR.match(text):
        until = now + int(match.group(1))
        return Action("stay_in", (state.city, world.clock_text(now), world.clock_text(until)))
    raise ActionSyntaxError(
        f"{text[:80]!r} is not an action; write one of: {PHRASES}; or a timed action: " + "; ".join(SYNTAX.values())
    )


def _train(state: ItineraryState, number: str, destination: str | None) -> Action:
    world, now = state.world, state.clock
    train = world.trains.get(number)
    if train is None:
        raise NotNow(f"there is no train {number}; the next trains from {state.city} are listed on the board")
    if train.origin != state.city:
        raise NotNow(f"train {number} leaves from {train.origin}, and the traveller is in {state.city}")
    if destination is not None and world.canonical(destination) != train.destination:
        raise NotNow(f"train {number} goes to {train.destination}, not {destination.strip()}")
    if train.departure < now:
        raise NotNow(
            f"train {number} left at {world.clock_text(train.departure)}; it is now {world.clock_text(now)}, "
            "pick a later train"
        )
    dep, arr = world.clock_text(train.departure), world.clock_text(train.arrival)
    return Action("go_to_city", (train.origin, train.destination, dep, arr, train.number))


def _here(state: ItineraryState, name: str) -> str:
    place = state.world.canonical(name)
    if place != state.place:
        raise NotNow(f"the traveller is at {state.place}, not {place}; go to {place} first")
    return place


def _until(world: World, now: int, text: str) -> int:
    text = text.strip()
    match = _HHMM.match(text)
    if match is None:
        try:
            target = world.minute_of(text)
        except ValueError:
            raise NotNow(f"{text!r} is not a time; write HH:MM (e.g. 10:30) or YYYY-MM-DD HH:MM") from None
    else:
        hours, minutes = int(match.group(1)), int(match.group(2))
        if hours > 23 or minutes > 59:
            raise NotNow(f"{text!r} is not a time of day; write HH:MM between 00:00 and 23:59")
        target = world.midnight_before(now) + hours * 60 + minutes
        if target <= now - 6 * 60:
            target += DAY
    if target <= now:
        raise NotNow(f"it is already {world.clock_text(now)}, past {text}; choose a later time")
    return target


# -- the menu ------------------------------------------------------------------------------------


def visit_limit(world: World, place: str, start: int) -> int:
    """The latest end of a visit to ``place`` from ``start`` that keeps its opening hours and, where
    the brief has them, the rest and meal hours and the trip's end (``start`` if none)."""
    spot = world.places[place]
    midnight = world.midnight_before(start)
    opens, closes = midnight + spot.opens * 60, midnight + spot.closes * 60
    if not opens <= start < closes:
        return start
    limit = min(closes, world.end)
    if world.rest_hours:
        if not midnight + REST_UNTIL <= start < midnight + REST_FROM:
            return start
        limit = min(limit, midnight + REST_FROM)
    if world.check_meals:
        for _name, begin, end in MEALS:
            if midnight + begin <= start < midnight + end:
                return start
            if start < midnight + begin:
                limit = min(limit, midnight + begin)
    return limit


def transfer_allowed(world: World, start: int, minutes: int) -> bool:
    midnight = world.midnight_before(start)
    end = start + minutes
    if end > world.end:
        return False
    if world.rest_hours and not (midnight + REST_UNTIL <= start and end <= midnight + REST_FROM):
        return False
    if world.check_meals:
        for _name, begin, finish in MEALS:
            if start < midnight + finish and midnight + begin < end:
                return False
    return True


def transfer_until(world: World, start: int, minutes: int) -> int | None:
    """The last minute, from ``start`` on, at which a transfer of ``minutes`` may still begin (it is
    allowed at every minute up to it and refused the minute after): the trip's end, the rest hours
    from 22:00 and the meals ahead close it. None when it is refused at ``start`` already. A
    real-time page takes its "go to" button away then, as the server would refuse it."""
    if not transfer_allowed(world, start, minutes):
        return None
    midnight = world.midnight_before(start)
    last = world.end - minutes
    if world.rest_hours:
        last = min(last, midnight + REST_FROM - minutes)
    if world.check_meals:
        for day in (midnight, midnight + DAY):
            for _name, begin, _finish in MEALS:
                if day + begin >= start + minutes:  # a meal ahead: the walk must be over when it begins
                    last = min(last, day + begin - minutes)
    return last


def _when(world: World, now: int, moment: int) -> str:
    text = world.clock_text(moment)
    return text[-5:] if moment - now < 18 * 60 else text


def wait_moments(state: ItineraryState) -> list[int]:
    """Useful moments to wait for: a sight still to see opening, the end of a meal or of the rest
    hours, an hour from now, and where the brief wants more days in this city, the moment the stay
    counts one more (offered beside the others: it is often a day away)."""
    world, now = state.world, state.clock
    midnight = world.midnight_before(now)
    moments: set[int] = {min(now + 60, world.end)}
    seen = state.spot_minutes()
    for spot in world.places_in(state.city):
        if spot.is_hotel or seen.get(spot.name, 0) >= world.required_minutes(spot.name) > 0:
            continue
        if spot.opens == 0 and spot.closes >= 24:
            continue  # always open: its "opening" at midnight is nothing to wait for
        for day in (midnight, midnight + DAY):
            if day + spot.opens * 60 > now:
                moments.add(day + spot.opens * 60)
                break
    if world.check_meals:
        for _name, begin, end in MEALS:
            if midnight + begin <= now < midnight + end:
                moments.add(midnight + end)
    if world.rest_hours and not midnight + REST_UNTIL <= now < midnight + REST_FROM:
        moments.add(midnight + REST_UNTIL + (DAY if now >= midnight + REST_FROM else 0))
    offered = sorted(m for m in moments if now < m <= world.end)[:WAITS_OFFERED]
    counted = next_wanted_day(state)
    if counted is not None and now < counted <= world.end and counted not in offered:
        offered = sorted([*offered, counted])
    return offered


def next_change(state: ItineraryState) -> int | None:
    """When the menu changes with time alone: the first moment a wait button offers (a sight
    opening, a meal's or the rest hours' end, at most an hour on) or the trip's end. Real-time play
    moves the traveller there by itself, as if that button had been pressed, so that the options the
    moment brings reach the page (``Domain.wakes_at``). A trip still on always has one (an hour on,
    or its end: an action that reaches the end time ends it); None once it is over."""
    if state.over:
        return None
    moments = wait_moments(state)
    return moments[0] if moments else None


def menu(state: ItineraryState) -> list[str]:
    if state.over:
        return []
    world, now = state.world, state.clock
    options: list[str] = []
    here = world.places.get(state.place)
    if here is not None and not here.is_hotel:
        # only a sight the brief still wants minutes at: anything else is a visit for nothing
        left = world.required_minutes(here.name) - state.spot_minutes().get(here.name, 0)
        limit = visit_limit(world, here.name, now)
        if 0 < left < limit - now:
            options.append(f"visit {here.name} for {left} minutes")
        elif left > 0 and limit > now:
            # Cut short (or just filled) by closing, a meal, the rest hours or the trip's end: "until"
            # that moment, so the button stays right while a real-time clock runs on (the same
            # minutes "for" would run into the meal a minute later).
            options.append(f"visit {here.name} until {_when(world, now, limit)}")
    for (origin, destination), minutes in sorted(world.transfers.items()):
        if origin == state.place and transfer_allowed(world, now, minutes):
            options.append(f"go to {destination}")
    upcoming = [
        t for t in world.trains_from.get(state.city, ()) if now <= t.departure < now + DAY and t.arrival <= world.end
    ]
    options.extend(f"take train {t.number} to {t.destination}" for t in upcoming[:TRAINS_OFFERED])
    options.extend(f"wait until {_when(world, now, m)}" for m in wait_moments(state))
    return options
