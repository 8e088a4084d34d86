"""Turning what happened since the last turn into the prompt's feedback and history sections.

Memory is a JSON dict persisted between turns (``npc.NpcMemory`` in live games, a local dict in
benchmarks): ``history`` (recent turns, a sliding window), ``problems`` (why parts of the last
reply were refused).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.engine.durations import format_clock
from games.engine.types import REJECTED, Event


def feedback_lines(events: Iterable[Event], agents: Sequence[int], base: int = 0) -> list[str]:
    """Rejections of our agents' actions (applied against the state as it was by then). Agents are
    numbered as the domain's texts number them: index + ``base`` (the descriptor's ``display_base``)."""
    lines = []
    for event in events:
        if event.kind == REJECTED and event.agent is not None and event.agent in agents:
            action, kind = event.data.get("action", ""), event.data.get("feedback", "")
            lines.append(f"agent {event.agent + base}: '{action}' was refused ({kind}): {event.message}")
    return lines


def suggestion_lines(events: Iterable[Event]) -> list[str]:
    """Domains may attach suggestions to events (kitchen: "throw the waste away")."""
    lines = []
    for event in events:
        suggestion = event.data.get("suggestion") or event.data.get("suggestions")
        if isinstance(suggestion, str) and suggestion:
            lines.append(suggestion)
        elif isinstance(suggestion, list):
            lines += [str(s) for s in suggestion if s]
    return lines


def event_lines(events: Iterable[Event], limit: int = 12, base: int = 0, unit: str = "") -> list[str]:
    """Everything else that happened, briefly, newest last (agents numbered as in ``feedback_lines``,
    times as ``when`` writes them in the rules' time ``unit``)."""
    lines = []
    for event in events:
        if event.kind == REJECTED or not event.message:
            continue
        who = "" if event.agent is None else f"agent {event.agent + base}: "
        lines.append(f"{when(event.time, unit)} {who}{event.message}")
    return lines[-limit:]


def remember(memory: dict[str, Any], entry: str, window: int) -> None:
    history: list[str] = memory.setdefault("history", [])
    history.append(entry)
    del history[:-window]


def history_text(memory: dict[str, Any]) -> str:
    return "\n".join(memory.get("history", []))


def when(time: float, unit: str = "") -> str:
    """A moment of game time as the prompt's state writes it: a clock for games counted in seconds
    (recipes say "The current time is 00:18:00", so not "t=1080"), else ``t=N``."""
    if unit == "second":
        return f"at {format_clock(time)}"
    return f"t={int(time)}" if float(time).is_integer() else f"t={time:.1f}"
