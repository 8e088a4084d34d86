"""The traveller's state: where, when, what was spent, the timeline so far and every check made.

One traveller per game; every seated agent (the human, an NPC travel assistant) acts on it.
States are immutable values; ``dump``/``load`` round-trip them exactly. A dump names its travel
world by the digest of the definition (``world_reference``) instead of copying a world of thousands
of trains into every snapshot: the world is compiled once per process (``WORLDS``) when a game on
its definition starts, and ``load`` finds it there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.domains.itinerary.world import World
from games.engine.compiled import CompiledScenarios
from games.engine.values import OWN_CACHE, evolver, quick_init

EXECUTABILITY = "executability"
CONSTRAINTS = "constraints"


@quick_init
@dataclass(frozen=True, slots=True)
class Segment:
    """One stretch of the timeline. ``kind``: train, transfer, visit or stay. ``implicit`` marks a
    gap the rules filled (the traveller waited where they were)."""

    kind: str
    start: int
    end: int
    city: str
    place: str
    origin: str = ""
    train: str = ""
    price: float = 0.0
    implicit: bool = False
    agent: int | None = None
    action: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "city": self.city,
            "place": self.place,
            "origin": self.origin,
            "train": self.train,
            "price": self.price,
            "implicit": self.implicit,
            "agent": self.agent,
            "action": self.action,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Segment:
        return cls(**raw)


@quick_init
@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check: ``level`` executability or constraints, ``check`` its name (train, position,
    time_order, transfer_duration, opening_hours, rest_hours, ...), ``subject`` what it was about,
    and a message that names the check and, when it failed, the fix."""

    level: str
    check: str
    subject: str
    passed: bool
    message: str
    time: int

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "check": self.check,
            "subject": self.subject,
            "passed": self.passed,
            "message": self.message,
            "time": self.time,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CheckResult:
        return cls(**raw)


@dataclass(frozen=True, slots=True)
class ItineraryState:
    world: World
    agents: int
    clock: int
    city: str
    place: str
    spent: float = 0.0
    arrived: int = 0  # when the traveller reached the current city (start of the open stay)
    days: tuple[tuple[str, int], ...] = ()  # whole days counted in each city for closed stays
    segments: tuple[Segment, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    last_end: int = 0  # end of the last action (the time the brief's "as early as possible" counts)
    over: str = ""  # why the trip ended, or ""
    # the menu of actions (``legal_actions``), asked for about three times per web action
    offered: tuple[str, ...] | None = field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)

    def evolve(self, **changes: Any) -> ItineraryState:
        return _evolve(self, **changes)

    def days_in(self, city: str) -> int:
        return dict(self.days).get(city, 0)

    def spot_minutes(self) -> dict[str, int]:
        done: dict[str, int] = {}
        for segment in self.segments:
            if segment.kind == "visit":
                done[segment.place] = done.get(segment.place, 0) + segment.end - segment.start
        return done


_evolve = evolver(ItineraryState)

# Each scenario's World, indexed once per process (games and their states share the immutable value).
WORLDS: CompiledScenarios[World] = CompiledScenarios(World.from_definition, by_digest=True)


def world_reference(world: World) -> dict[str, Any]:
    """How a dump names its travel world: the digest of its definition (``WORLDS``' key), with the
    definition's kind and source for a reader; the world itself is not copied into every dump."""
    definition = world.definition
    return {
        "key": WORLDS.dump_key(world, definition),
        "kind": definition.get("kind"),
        "source": definition.get("source"),
    }


def dump(state: ItineraryState) -> dict[str, Any]:
    return {
        "world": world_reference(state.world),
        "agents": state.agents,
        "clock": state.clock,
        "city": state.city,
        "place": state.place,
        "spent": state.spent,
        "arrived": state.arrived,
        "days": [[city, days] for city, days in state.days],
        "segments": [segment.to_json() for segment in state.segments],
        "checks": [check.to_json() for check in state.checks],
        "last_end": state.last_end,
        "over": state.over,
    }


def world_of(raw: Mapping[str, Any]) -> World:
    """The world a dump names (``UnknownScenario`` when this process has not compiled it: start a
    game on its definition first); a dump written before worlds were referenced carries its
    definition."""
    if "definition" in raw:
        return WORLDS.get(raw["definition"], key=raw.get("scenario_key"))
    return WORLDS.known(raw["world"]["key"])


def load(raw: Mapping[str, Any], world: World | None = None) -> ItineraryState:
    return ItineraryState(
        world=world or world_of(raw),
        agents=int(raw["agents"]),
        clock=int(raw["clock"]),
        city=raw["city"],
        place=raw["place"],
        spent=float(raw["spent"]),
        arrived=int(raw["arrived"]),
        days=tuple((city, int(days)) for city, days in raw["days"]),
        segments=tuple(Segment.from_json(s) for s in raw["segments"]),
        checks=tuple(CheckResult.from_json(c) for c in raw["checks"]),
        last_end=int(raw["last_end"]),
        over=raw["over"],
    )
