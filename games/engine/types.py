"""Values shared by every rule set: events, transitions, observations and outcomes.

Every value here is immutable and JSON-friendly (``to_json``/``from_json``), because states and
events are stored in the game's event log and replayed after a restart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.values import quick_init

JSON = dict[str, Any]

# Event kinds every domain uses; domains may add their own (``order_arrived`` ...).
STARTED = "started"
COMPLETED = "completed"
REJECTED = "rejected"
WAITED = "waited"
PAUSED = "paused"
FINISHED = "finished"


@quick_init
@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at game time ``time`` (in the rule set's time unit).

    ``agent`` is None for events nobody caused (an order arriving, a background action
    completing is still attributed to the agent who started it). ``data`` holds structured,
    JSON-serialisable details for UIs and metrics; ``message`` is the sentence shown to players
    and LLMs.
    """

    kind: str
    time: float
    message: str
    agent: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "kind": self.kind,
            "time": self.time,
            "agent": self.agent,
            "message": self.message,
            "data": dict(self.data),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        return cls(
            kind=raw["kind"],
            time=raw["time"],
            message=raw.get("message", ""),
            agent=raw.get("agent"),
            data=dict(raw.get("data") or {}),
        )


@dataclass(frozen=True, slots=True)
class Feedback:
    """Why an action was rejected: a kind from the domain's catalogue and a message that says
    what to do instead."""

    kind: str
    message: str


def rejected(time: float, agent: int | None, action: str, feedback: Feedback) -> Event:
    """The event every rule set emits for a rejected action."""
    return Event(
        kind=REJECTED,
        time=time,
        agent=agent,
        message=feedback.message,
        data={"action": action, "feedback": feedback.kind},
    )


@quick_init
@dataclass(frozen=True, slots=True)
class Transition[S]:
    """The result of ``act`` or ``advance``: the new state and the events it caused, in order."""

    state: S
    events: tuple[Event, ...] = ()

    @property
    def rejection(self) -> Feedback | None:
        for event in self.events:
            if event.kind == REJECTED:
                return Feedback(kind=str(event.data.get("feedback", "")), message=event.message)
        return None


@dataclass(frozen=True, slots=True)
class Observation:
    """What one agent may see: ``text`` for LLMs, ``data`` (JSON) for user interfaces."""

    text: str
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """Whether an episode is over. ``terminated``: the rules ended it (success or failure);
    ``truncated``: a limit ended it (time limit, too many rejected actions)."""

    terminated: bool = False
    truncated: bool = False
    reason: str = ""

    @property
    def over(self) -> bool:
        return self.terminated or self.truncated
