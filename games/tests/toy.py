"""A tiny rule set used to drive the game loop in tests (independent of the four domains).

Scenario: ``{"jobs": {"sweep": 2, ...}, "background": {"laundry": 3, ...}, "limit": 40}``. Any agent
may ``do <job>`` (occupies it for the job's minutes) or ``start <background>`` (occupies it one
minute, completes by itself later); ``wait`` occupies it one minute. It ends when every job is done,
at the time limit, or after 5 rejected actions in a row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.engine.domain import Domain
from games.engine.types import (
    COMPLETED,
    STARTED,
    WAITED,
    Event,
    Feedback,
    Observation,
    Outcome,
    Transition,
    rejected,
)


@dataclass(frozen=True)
class ToyState:
    time: int
    durations: tuple[tuple[str, int, bool], ...]  # (name, minutes, background)
    busy_until: tuple[int, ...]
    running: tuple[tuple[str, int, int, int], ...]  # (name, agent, start, end)
    done: tuple[str, ...]
    limit: int
    streak: int = 0


class ToyRules:
    id = "toy-v1"
    domain = "toy"
    time_unit = "minute"

    def initial_state(self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options=None) -> ToyState:
        durations = tuple((name, int(d), False) for name, d in scenario.get("jobs", {}).items())
        durations += tuple((name, int(d), True) for name, d in scenario.get("background", {}).items())
        return ToyState(0, durations, (0,) * agents, (), (), int(scenario.get("limit", 40)))

    def now(self, state: ToyState) -> float:
        return state.time

    def _free(self, state: ToyState, agent: int) -> bool:
        return state.busy_until[agent] <= state.time

    def _open(self, state: ToyState) -> list[tuple[str, int, bool]]:
        started = {r[0] for r in state.running} | set(state.done)
        return [d for d in state.durations if d[0] not in started]

    def legal_actions(self, state: ToyState, agent: int) -> list[str]:
        if not self._free(state, agent) or self.outcome(state).over:
            return []
        return [("start " if bg else "do ") + name for name, _, bg in self._open(state)] + ["wait"]

    def observe(self, state: ToyState, agent: int) -> Observation:
        data = {
            "time": state.time,
            "done": list(state.done),
            "running": [list(r) for r in state.running],
            "open": [name for name, _, _ in self._open(state)],
        }
        return Observation(text=f"t={state.time}; open: {', '.join(data['open']) or 'none'}", data=data)

    def act(self, state: ToyState, agent: int, action: str, now: float) -> Transition[ToyState]:
        text = " ".join(action.lower().split())
        t = state.time
        if not self._free(state, agent):
            return self._reject(state, agent, action, "agent_busy", f"you are busy until t={state.busy_until[agent]}")
        if text == "wait":
            busy = self._set_busy(state, agent, t + 1)
            return Transition(replace(busy, streak=0), (Event(WAITED, t, "you wait one minute", agent),))
        verb, _, name = text.partition(" ")
        match = [d for d in self._open(state) if d[0] == name]
        if verb not in {"do", "start"} or not match:
            return self._reject(
                state, agent, action, "invalid_action", "try one of: " + ", ".join(self.legal_actions(state, agent))
            )
        name, minutes, background = match[0]
        if background != (verb == "start"):
            return self._reject(state, agent, action, "wrong_verb", f"use '{'start' if background else 'do'} {name}'")
        end = t + minutes
        state = self._set_busy(state, agent, t + 1 if background else end)
        state = replace(state, running=(*state.running, (name, agent, t, end)), streak=0)
        event = Event(STARTED, t, f"you started {name}, it ends at t={end}", agent, {"action": text, "end": end})
        return Transition(state, (event,))

    def _set_busy(self, state: ToyState, agent: int, until: int) -> ToyState:
        busy = list(state.busy_until)
        busy[agent] = until
        return replace(state, busy_until=tuple(busy))

    def _reject(self, state: ToyState, agent: int, action: str, kind: str, message: str) -> Transition[ToyState]:
        return Transition(
            replace(state, streak=state.streak + 1), (rejected(state.time, agent, action, Feedback(kind, message)),)
        )

    def advance(self, state: ToyState, until: float) -> Transition[ToyState]:
        target = int(until)
        events = []
        running, done = [], list(state.done)
        for name, agent, start, end in sorted(state.running, key=lambda r: (r[3], r[0])):
            if end <= target:
                done.append(name)
                events.append(Event(COMPLETED, end, f"{name} is done", agent, {"action": name}))
            else:
                running.append((name, agent, start, end))
        new = replace(state, time=max(state.time, min(target, state.limit)), running=tuple(running), done=tuple(done))
        return Transition(new, tuple(events))

    def next_deadline(self, state: ToyState) -> float | None:
        if self.outcome(state).over:
            return None
        times = [r[3] for r in state.running] + [b for b in state.busy_until if b > state.time] + [state.limit]
        return min(times)

    def awaiting(self, state: ToyState) -> frozenset[int]:
        if self.outcome(state).over:
            return frozenset()
        return frozenset(a for a in range(len(state.busy_until)) if self._free(state, a))

    def outcome(self, state: ToyState) -> Outcome:
        if len(state.done) == len(state.durations):
            return Outcome(terminated=True, reason="all jobs done")
        if state.time >= state.limit:
            return Outcome(truncated=True, reason="time limit")
        if state.streak >= 5:
            return Outcome(truncated=True, reason="5 rejected actions in a row")
        return Outcome()

    def result(self, state: ToyState) -> dict[str, Any]:
        total = sum(d for _, d, _ in state.durations) or 1
        done = sum(d for n, d, _ in state.durations if n in state.done)
        complete = len(state.done) == len(state.durations)
        return {"progress": round(100 * done / total, 2), "completion_time": state.time if complete else None}

    def dump_state(self, state: ToyState) -> dict[str, Any]:
        return {
            "time": state.time,
            "durations": [list(d) for d in state.durations],
            "busy_until": list(state.busy_until),
            "running": [list(r) for r in state.running],
            "done": list(state.done),
            "limit": state.limit,
            "streak": state.streak,
        }

    def load_state(self, raw: Mapping[str, Any]) -> ToyState:
        return ToyState(
            time=raw["time"],
            durations=tuple((n, d, bg) for n, d, bg in raw["durations"]),
            busy_until=tuple(raw["busy_until"]),
            running=tuple((n, a, s, e) for n, a, s, e in raw["running"]),
            done=tuple(raw["done"]),
            limit=raw["limit"],
            streak=raw["streak"],
        )


RULES = ToyRules()


def npc_policy(rules: Any, state: ToyState, agent: int) -> str | None:
    """The toy's planner teammate: the first open chore, else wait."""
    legal = rules.legal_actions(state, agent)
    useful = [action for action in legal if action != "wait"]
    return (useful or legal or [None])[0]


# The toy game's one descriptor: registering it is all a test needs to play it everywhere.
DOMAIN = Domain(
    name="toy",
    title="Toy (tests)",
    rule_sets={"toy-v1": "games.tests.toy:RULES"},
    llm_title="a toy list of chores",
    npc_policy="games.tests.toy:npc_policy",
)
