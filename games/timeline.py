"""The Gantt timeline of a game (and of a plan) from its log: one row per agent, one bar per action.

Read from the engine's ``started``/``completed``/``waited``/``rejected`` events, whose details name
the ``action`` and, where the domain knows them, its ``start``, ``end`` and ``background`` flag. A
bar without a known end runs until its ``completed`` event, or until now while it is running.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

TIMELINE_KINDS = ("started", "completed", "waited", "rejected")


@dataclass
class Bar:
    label: str
    start: float
    end: float | None
    kind: str  # occupying, background, wait
    done: bool = False

    def width(self, now: float) -> float:
        return max(0.0, (self.end if self.end is not None else now) - self.start)


@dataclass
class Row:
    agent: int
    label: str
    bars: list[Bar] = field(default_factory=list)
    rejections: list[tuple[float, str]] = field(default_factory=list)


@dataclass
class Timeline:
    rows: list[Row]
    span: float
    now: float

    def percent(self, value: float) -> float:
        return round(100.0 * min(max(value, 0.0), self.span) / self.span, 3) if self.span else 0.0

    @property
    def ticks(self) -> list[float]:
        step = _tick_step(self.span)
        return [i * step for i in range(int(self.span // step) + 1)]


def build(entries: Iterable[Any], agent_labels: Sequence[str], *, now: float, limit: float | None = None) -> Timeline:
    """``entries``: GameEvent rows (or objects with category/kind/agent/time/data) in seq order."""
    rows = [Row(agent=i, label=label) for i, label in enumerate(agent_labels)]
    open_bars: dict[tuple[int, str], Bar] = {}
    latest = now
    for entry in entries:
        if entry.category != "engine" or entry.kind not in TIMELINE_KINDS or entry.agent is None:
            continue
        if entry.agent >= len(rows):
            rows.extend(Row(agent=i, label=f"agent {i}") for i in range(len(rows), entry.agent + 1))
        row = rows[entry.agent]
        details = entry.data.get("details", {})
        action = str(details.get("action", ""))
        if entry.kind == "started":
            start = float(details.get("start", entry.time))
            end = details.get("end")
            kind = "background" if details.get("background") else "occupying"
            bar = Bar(label=action, start=start, end=float(end) if end is not None else None, kind=kind)
            row.bars.append(bar)
            open_bars[(entry.agent, action)] = bar
            latest = max(latest, bar.end or start)
        elif entry.kind == "completed":
            finished = open_bars.pop((entry.agent, action)) if (entry.agent, action) in open_bars else None
            if finished is not None:
                finished.done = True
                if finished.end is None:
                    finished.end = float(details.get("end", entry.time))
        elif entry.kind == "waited":
            row.bars.append(Bar(label="wait", start=entry.time, end=entry.time + 1, kind="wait", done=True))
        elif entry.kind == "rejected":
            row.rejections.append((entry.time, entry.data.get("message", "")))
    # the span follows the game (a little room ahead) rather than the time limit, so short actions
    # stay readable early on; ``limit`` caps it
    span = max(latest, 1.0) * 1.1 + 2
    if limit:
        span = min(span, float(limit))
    return Timeline(rows=rows, span=max(span, latest, 1.0), now=now)


def from_plan(steps: Iterable[dict[str, Any]], agent_labels: Sequence[str]) -> Timeline:
    """A planner's schedule ``[{"agent", "action", "start", "end", "background"}]`` as a timeline."""
    rows = [Row(agent=i, label=label) for i, label in enumerate(agent_labels)]
    latest = 1.0
    for step in steps:
        agent = int(step.get("agent", 0))
        while agent >= len(rows):
            rows.append(Row(agent=len(rows), label=f"agent {len(rows)}"))
        kind = "background" if step.get("background") else "occupying"
        bar = Bar(label=str(step["action"]), start=float(step["start"]), end=float(step["end"]), kind=kind, done=True)
        rows[agent].bars.append(bar)
        latest = max(latest, bar.end or 0.0)
    return Timeline(rows=rows, span=latest, now=latest)


def _tick_step(span: float) -> float:
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600):
        if span / step <= 12:
            return float(step)
    return float(int(span / 10) or 1)
