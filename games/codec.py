"""Engine values <-> stored and wire JSON: the one module that knows both sides.

A stored log entry (``GameEvent``) is ``category/kind/agent/time/data``; an engine ``Event``
becomes an ``engine`` entry whose ``data`` keeps its message and details. On the wire every entry
is ``{"type": "event", "seq", "category", "kind", "agent", "time", "message", "data"}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

from games.engine.types import Event


@dataclass(frozen=True, slots=True)
class Entry:
    """A log entry before it is stored (``seq`` is given when it is appended)."""

    category: str
    kind: str
    time: float
    agent: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


def entry_from_event(event: Event) -> Entry:
    return Entry(
        category="engine",
        kind=event.kind,
        time=float(event.time),
        agent=event.agent,
        data={"message": event.message, **({"details": dict(event.data)} if event.data else {})},
    )


def event_from_entry(kind: str, time: float, agent: int | None, data: dict[str, Any]) -> Event:
    """The engine event an ``engine`` entry stored (used to compare a rebuild with the log)."""
    return Event(kind=kind, time=time, agent=agent, message=data.get("message", ""), data=data.get("details", {}))


def message_of(category: str, kind: str, data: dict[str, Any]) -> str:
    """The sentence a player reads for an entry."""
    if category == "engine":
        return str(data.get("message", ""))
    if category == "action":
        return f"{data.get('by') or 'agent'}: {data.get('action', '')}"
    if category == "chat":
        sender = data.get("from")
        return f"{sender}: {data.get('text', '')}" if sender else str(data.get("text", ""))
    if category == "clock":
        return f"time moves to {format_time(data.get('until', 0))}"
    return str(data.get("message") or kind.replace("_", " "))


def format_time(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def wire_event(seq: int, category: str, kind: str, agent: int | None, time: float, data: dict[str, Any]) -> dict:
    return {
        "type": "event",
        "seq": seq,
        "category": category,
        "kind": kind,
        "agent": agent,
        "time": time,
        "message": message_of(category, kind, data),
        "data": data,
    }


def wire_text(message: dict[str, Any]) -> str:
    """A wire message as JSON text. orjson writes it several times faster than ``json.dumps`` (on
    the load benchmark the frames' encoding was a twentieth of the server's CPU); a value it does
    not take (an integer beyond 64 bits) goes through the standard library instead."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(message)
