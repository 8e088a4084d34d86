"""What a player or an LLM sees of an itinerary game.

``observation_data(state)`` (JSON, for the browser UI) has this shape::

    {
      "clock":    {"minute": 95, "text": "2023-07-03 01:35", "begin": "...", "end": "...", "minutes_left": 7105},
      "wallet":   {"spent": 65.0, "budget": 200.0 | null, "left": 135.0 | null},
      "position": {"city": "Hangzhou", "place": "Hangzhou Railway Hotel", "kind": "hotel" | "spot"},
      "brief":    {"text": "...the traveller's request...", "objective": "money" | "time",
                   "origin_city": "...", "return_to_origin": bool, "check_opening_hours": bool,
                   "check_meals": bool, "rest_hours": bool, "one_day": bool},
      "trains":   [{"number", "origin", "destination", "departure", "arrival", "minutes", "price",
                    "from_here": bool}],   # upcoming trains between the brief's cities (<= 60)
      "places":   [{"name", "city", "kind", "opens", "closes", "transfer_minutes": int | null,
                    "transfer_until": int | null,  # the last minute the walk there may begin
                    "visit_until": int | null,  # the sight here: the latest end of a visit from now
                    "required_minutes": int, "visited_minutes": int, "here": bool}],  # current city
      "plan":     [{"kind": "train|transfer|visit|stay", "action", "start", "end", "start_text",
                    "end_text", "city", "place", "price", "implicit": bool, "agent"}],
      "goals":    [{"check": "spot_minutes|city_days|return_to_origin", "subject", "required",
                    "done", "met": bool, "next_day_at": int}],  # next_day_at: city_days while
                    # staying in that city short of its days, the trip minute the stay counts one more
      "failed_checks": ["<check> failed: ... fix"],
      "over": "" | "why the trip ended"
    }

``observation_text(state)`` is the same in a compact text for LLM prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.domains.itinerary.checks import next_wanted_day, stay_days
from games.domains.itinerary.now import transfer_until, visit_limit

if TYPE_CHECKING:
    from games.domains.itinerary.state import ItineraryState

TRAIN_WINDOW = 3 * 24 * 60
MAX_TRAINS = 60


def goals(state: ItineraryState) -> list[dict[str, Any]]:
    world = state.world
    rows: list[dict[str, Any]] = []
    done = state.spot_minutes()
    for spot, minutes in world.spot_minutes:
        got = done.get(spot, 0)
        rows.append({"check": "spot_minutes", "subject": spot, "required": minutes, "done": got, "met": got >= minutes})
    for city, days in world.city_days:
        got = state.days_in(city)
        row: dict[str, Any] = {"check": "city_days", "subject": city, "required": days}
        if city == state.city and state.segments:
            got += stay_days(world, state.arrived, state.clock)
            if (counted := next_wanted_day(state)) is not None:  # staying on here counts another day then
                row["next_day_at"] = counted
        rows.append({**row, "done": got, "met": got >= days})
    if world.return_to_origin:
        back = state.city == world.origin_city and bool(state.days)
        rows.append(
            {"check": "return_to_origin", "subject": world.origin_city, "required": 1, "done": int(back), "met": back}
        )
    return rows


def observation_data(state: ItineraryState) -> dict[str, Any]:
    world = state.world
    clock = world.clock_text
    here = world.places.get(state.place)
    trains = [
        t
        for t in sorted(world.trains.values(), key=lambda t: (t.departure, t.number))
        if state.clock <= t.departure < state.clock + TRAIN_WINDOW
    ][:MAX_TRAINS]
    places = []
    done = state.spot_minutes()
    for place in sorted(world.places_in(state.city), key=lambda p: (p.kind != "hotel", p.name)):
        walk = world.transfers.get((state.place, place.name))
        at = place.name == state.place
        until = visit_limit(world, place.name, state.clock) if at and not place.is_hotel else None
        places.append(
            {
                "name": place.name,
                "city": place.city,
                "kind": place.kind,
                "opens": place.opens,
                "closes": place.closes,
                "transfer_minutes": walk,
                "transfer_until": None if walk is None else transfer_until(world, state.clock, walk),
                "visit_until": until if until is not None and until > state.clock else None,
                "required_minutes": world.required_minutes(place.name),
                "visited_minutes": done.get(place.name, 0),
                "here": at,
            }
        )
    return {
        "clock": {
            "minute": state.clock,
            "text": clock(state.clock),
            "begin": clock(0),
            "end": clock(world.end),
            "minutes_left": max(0, world.end - state.clock),
        },
        "wallet": {
            "spent": state.spent,
            "budget": world.budget,
            "left": None if world.budget is None else world.budget - state.spent,
        },
        "position": {"city": state.city, "place": state.place, "kind": here.kind if here else "hotel"},
        "brief": {
            "text": world.definition.get("brief", ""),
            "objective": world.objective,
            "origin_city": world.origin_city,
            "return_to_origin": world.return_to_origin,
            "check_opening_hours": world.check_opening_hours,
            "check_meals": world.check_meals,
            "rest_hours": world.rest_hours,
            "one_day": world.one_day,
        },
        "trains": [
            {
                "number": t.number,
                "origin": t.origin,
                "destination": t.destination,
                "departure": clock(t.departure),
                "arrival": clock(t.arrival),
                "minutes": t.arrival - t.departure,
                "price": t.price,
                "from_here": t.origin == state.city,
            }
            for t in trains
        ],
        "places": places,
        "plan": [
            {
                "kind": s.kind,
                "action": s.action,
                "start": s.start,
                "end": s.end,
                "start_text": clock(s.start),
                "end_text": clock(s.end),
                "city": s.city,
                "place": s.place,
                "price": s.price,
                "implicit": s.implicit,
                "agent": s.agent,
            }
            for s in state.segments
        ],
        "goals": goals(state),
        "failed_checks": [c.message for c in state.checks if not c.passed],
        "over": state.over,
    }


def observation_text(state: ItineraryState) -> str:
    world = state.world
    clock = world.clock_text
    lines = [
        f"Brief: {world.definition.get('brief', '').strip()}",
        f"Trip window: {clock(0)} to {clock(world.end)}. Goal: spend as little "
        + ("money" if world.objective == "money" else "time")
        + " as possible.",
        f"Now: {clock(state.clock)}. In {state.city}, at {state.place}. Spent {state.spent:g}"
        + (f" of a {world.budget:g} budget." if world.budget is not None else "."),
    ]
    rules = []
    if world.check_opening_hours:
        rules.append("visits must be inside opening hours")
    if world.rest_hours:
        rules.append("visits and transfers only 07:00-22:00")
    if world.check_meals:
        rules.append("keep 12:00-13:00 and 18:30-19:30 free of visits and transfers")
    if world.return_to_origin:
        rules.append(f"end the trip back in {world.origin_city}")
    if world.one_day:
        # the published simulator's rule (checks.stay_days): half a day more, not the whole day
        rules.append("a stay in a city counts a day per 24 hours, the first after 12 hours when it begins before noon")
    if rules:
        lines.append("Rules: " + "; ".join(rules) + ".")
    for goal in goals(state):
        mark = "done" if goal["met"] else "to do"
        lines.append(f"Goal {goal['check']} {goal['subject']}: {goal['done']}/{goal['required']} ({mark}).")
    upcoming = [t for t in world.trains_from.get(state.city, ()) if t.departure >= state.clock][:12]
    if upcoming:
        lines.append(f"Next trains from {state.city} (number, to, departs, arrives, price):")
        lines.extend(
            f"  {t.number} to {t.destination} {clock(t.departure)} -> {clock(t.arrival)} {t.price:g}" for t in upcoming
        )
    places = world.places_in(state.city)
    if len(places) > 1:
        lines.append(f"Places in {state.city} (opening hours, transfer minutes from here):")
        for place in sorted(places, key=lambda p: p.name):
            minutes = world.transfers.get((state.place, place.name))
            away = "here" if place.name == state.place else f"{minutes} min" if minutes is not None else "-"
            lines.append(f"  {place.name} [{place.kind}] {place.opens:02d}:00-{place.closes:02d}:00, {away}")
    lines.append(
        "Actions: go_to_city(origin, destination, departure, arrival, train); go_to_place(origin, destination, "
        "departure, arrival); visit(place, begin, end); stay_in(city, begin, end). Times YYYY-MM-DD HH:MM."
    )
    if state.over:
        lines.append(f"The trip is over: {state.over}.")
    return "\n".join(lines)
