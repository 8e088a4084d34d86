"""Turning what happened since the last turn into the prompt's feedback and history sections.

Memory is a JSON dict persisted between turns (``npc.NpcMemory`` in live games, a local dict in
benchmarks): ``history`` (recent turns, a sliding window), ``problems`` (why parts of the last
reply were refused).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.engine.types import REJECTED, Event


def feedback_lines(events: Iterable[Event], agents: Sequence[int]) -> list[str]:
    """Rejections of our agents' actions (applied against the state as it was by then)."""
    lines = []
    for event in events:
        if event.kind == REJECTED and event.agent in agents:
            action = event.data.get("action", "")
            lines.append(
                f"agent {event.agent}: '{action}' was refused ({event.data.get('feedback', '')}): {event.message}"
            )
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


def event_lines(events: Iterable[Event], limit: int = 12) -> list[str]:
    """Everything else that happened, briefly, newest last."""
    lines = []
    for event in events:
        if event.kind == REJECTED or not event.message:
            continue
        who = "" if event.agent is None else f"agent {event.agent}: "
        lines.append(f"t={_fmt(event.time)} {who}{event.message}")
    return lines[-limit:]


def remember(memory: dict[str, Any], entry: str, window: int) -> None:
    history: list[str] = memory.setdefault("history", [])
    history.append(entry)
    del history[:-window]


def history_text(memory: dict[str, Any]) -> str:
    return "\n".join(memory.get("history", []))


def _fmt(time: float) -> str:
    return str(int(time)) if float(time).is_integer() else f"{time:.1f}"
