"""The travel world one brief is played in: places, in-city transfers, trains and the clock origin.

A scenario definition carries only the slice of the travel data its brief needs (the cities the
brief names plus the origin: their places, transfers and the trains between them inside the trip
window), so a definition is self-contained and the rules stay pure. Game time is **whole minutes
since the brief's ``begin``**; texts use "YYYY-MM-DD HH:MM" as the published benchmark does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from typing import Any

TIME_FORMAT = "%Y-%m-%d %H:%M"
DAY = 24 * 60


class WorldError(ValueError):
    """A scenario definition that cannot be played (the message names the field at fault)."""


_PLAIN_CLOCK = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2})")


def parse_clock(text: str) -> datetime:
    """Parse "YYYY-MM-DD HH:MM" (seconds and "24:00" tolerated, as timetables write them)."""
    plain = _PLAIN_CLOCK.fullmatch(text)
    if plain is not None:  # the usual spelling, read without strptime (a world has thousands)
        try:
            parts = [int(part) for part in plain.groups()]
            return datetime(parts[0], parts[1], parts[2], parts[3], parts[4])
        except ValueError:
            pass  # 24:00 and the like: the general path below
    raw = text.strip().replace("T", " ")
    if raw.count(":") == 2:
        raw = raw.rsplit(":", 1)[0]
    try:
        return datetime.strptime(raw, TIME_FORMAT)
    except ValueError:
        pass
    try:
        day, hour_minute = raw.split(" ")
        hour, minute = (int(part) for part in hour_minute.split(":"))
        if hour == 24 and minute == 0:
            return datetime.strptime(day, "%Y-%m-%d") + timedelta(days=1)
    except ValueError:
        pass
    raise ValueError(f"{text!r} is not a time; write it as YYYY-MM-DD HH:MM, e.g. 2023-07-03 08:30")


@lru_cache(maxsize=1 << 16)
def _clock_text(begin_at: datetime, minute: int) -> str:
    # Every message and observation writes clock times; strftime is the slow part of writing them.
    return (begin_at + timedelta(minutes=minute)).strftime(TIME_FORMAT)


@lru_cache(maxsize=1 << 16)
def _minute_of(begin_at: datetime, text: str) -> int:
    # Every action names two times, each usually the end of one action and the start of the next.
    delta = parse_clock(text) - begin_at
    return int(delta.total_seconds() // 60)


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    city: str
    kind: str  # "hotel" or "spot"
    opens: int  # whole hours, as the data gives them
    closes: int

    @property
    def is_hotel(self) -> bool:
        return self.kind == "hotel"


@dataclass(frozen=True, slots=True)
class Train:
    number: str
    origin: str
    destination: str
    departure: int  # minutes since begin
    arrival: int
    price: float


@dataclass(frozen=True)
class World:
    """Everything the rules read from a definition, indexed once. Built by ``World.from_definition``."""

    definition: Mapping[str, Any]
    begin_at: datetime
    end: int
    places: Mapping[str, Place]
    transfers: Mapping[tuple[str, str], int]
    trains: Mapping[str, Train]
    origin_city: str
    origin_place: str
    budget: float | None
    objective: str
    check_opening_hours: bool
    check_meals: bool
    rest_hours: bool
    one_day: bool
    return_to_origin: bool
    city_days: tuple[tuple[str, int], ...]
    spot_minutes: tuple[tuple[str, int], ...]
    efficiency: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_definition(cls, definition: Mapping[str, Any]) -> World:
        try:
            begin_at = parse_clock(definition["begin"])
            end_at = parse_clock(definition["end"])
            raw_world = definition["world"]
            places = {
                p["name"]: Place(p["name"], p["city"], p["kind"], int(p["opens"]), int(p["closes"]))
                for p in raw_world["places"]
            }
            transfers = {(a, b): int(minutes) for a, b, minutes in raw_world["transfers"]}

            def minute(text: str) -> int:
                return int((parse_clock(text) - begin_at).total_seconds() // 60)

            trains = {
                number: Train(number, origin, destination, minute(dep), minute(arr), float(price))
                for number, origin, destination, dep, arr, price in raw_world["trains"]
            }
            constraints = definition.get("constraints") or {}
            origin_city = definition["origin_city"]
            origin_place = definition.get("origin_place") or f"{origin_city} Railway Hotel"
            budget = definition.get("budget")
            world = cls(
                definition=definition,
                begin_at=begin_at,
                end=int((end_at - begin_at).total_seconds() // 60),
                places=places,
                transfers=transfers,
                trains=trains,
                origin_city=origin_city,
                origin_place=origin_place,
                budget=None if budget is None else float(budget),
                objective=definition.get("objective", "time"),
                check_opening_hours=bool(definition.get("check_opening_hours", False)),
                check_meals=bool(definition.get("check_meals", False)),
                rest_hours=bool(definition.get("rest_hours", False)),
                one_day=bool(definition.get("one_day", False)),
                return_to_origin=bool(definition.get("return_to_origin", False)),
                city_days=tuple((c["city"], int(c["days"])) for c in constraints.get("city_days", [])),
                spot_minutes=tuple((s["spot"], int(s["minutes"])) for s in constraints.get("spot_minutes", [])),
                efficiency=dict(definition.get("efficiency") or {}),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise WorldError(f"the itinerary definition is incomplete or malformed: {error}") from error
        if world.objective not in ("time", "money"):
            raise WorldError(f"objective must be 'time' or 'money', not {world.objective!r}")
        for spot, _ in world.spot_minutes:
            if spot not in places:
                raise WorldError(f"constraint names the spot {spot!r}, which is not among the definition's places")
        if origin_place not in places:
            raise WorldError(f"origin place {origin_place!r} is not among the definition's places")
        return world

    # -- clock ---------------------------------------------------------------------------------
    def clock_text(self, minute: int) -> str:
        return _clock_text(self.begin_at, minute)

    def minute_of(self, text: str) -> int:
        """Minutes since begin for a "YYYY-MM-DD HH:MM" text (raises ValueError with a fix)."""
        return _minute_of(self.begin_at, text)

    def time_of_day(self, minute: int) -> int:
        """Minutes since midnight of the local day for a game minute."""
        start = self.begin_at.hour * 60 + self.begin_at.minute
        return (start + minute) % DAY

    def midnight_before(self, minute: int) -> int:
        """The game minute of the midnight that starts ``minute``'s day."""
        return minute - self.time_of_day(minute)

    # -- look-ups ------------------------------------------------------------------------------
    @cached_property
    def cities(self) -> tuple[str, ...]:
        return tuple(sorted({p.city for p in self.places.values()} | {self.origin_city}))

    @cached_property
    def _names(self) -> dict[str, str]:
        names = {name.casefold(): name for name in self.places}
        names.update({city.casefold(): city for city in self.cities})
        return names

    def canonical(self, name: str) -> str:
        """The world's spelling of a place or city name (case and spacing forgiven)."""
        memo = self._canonical
        found = memo.get(name)
        if found is None:
            found = self._names.get(" ".join(name.split()).casefold(), name.strip())
            if len(memo) >= 4096:  # players' odd spellings must not grow it without end
                memo.clear()
            memo[name] = found
        return found

    @cached_property
    def _canonical(self) -> dict[str, str]:
        return {}

    def places_in(self, city: str) -> list[Place]:
        return [p for p in self.places.values() if p.city == city]

    @cached_property
    def trains_from(self) -> Mapping[str, tuple[Train, ...]]:
        by_origin: dict[str, list[Train]] = {}
        for train in self.trains.values():
            by_origin.setdefault(train.origin, []).append(train)
        return {c: tuple(sorted(ts, key=lambda t: (t.departure, t.number))) for c, ts in by_origin.items()}

    def railway_hotel(self, city: str) -> str:
        return f"{city} Railway Hotel"

    def required_minutes(self, spot: str) -> int:
        return dict(self.spot_minutes).get(spot, 0)
