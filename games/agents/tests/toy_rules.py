"""A tiny rule set for the agents' unit tests: chores that take two minutes, one agent each.

Real domains are exercised in the integration and LLM tiers; this one keeps the pure tests about
the agents themselves (prompting, extraction, validation, feedback) fast and independent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.engine.types import COMPLETED, STARTED, Event, Feedback, Observation, Outcome, Transition, rejected

DURATION = 2


@dataclass(frozen=True)
class ToyState:
    time: int
    chores: tuple[str, ...]
    done: frozenset[str]
    running: tuple[tuple[str, int, int], ...]  # (chore, agent, end)
    agents: int
    rejections: int = 0


class ToyRules:
    id = "toy-v1"
    domain = "toy"
    time_unit = "minute"

    def initial_state(self, scenario, *, seed=0, agents=1, options=None):
        return ToyState(0, tuple(scenario["chores"]), frozenset(), (), agents)

    def now(self, state):
        return state.time

    def _busy(self, state, agent):
        return any(a == agent for _c, a, _e in state.running)

    def legal_actions(self, state, agent):
        if self._busy(state, agent):
            return []
        taken = {c for c, _a, _e in state.running}
        return [f"do {c}" for c in state.chores if c not in state.done and c not in taken] + ["wait"]

    def observe(self, state, agent):
        todo = [c for c in state.chores if c not in state.done]
        done = ", ".join(sorted(state.done)) or "nothing"
        text = f"t={state.time}. To do: {', '.join(todo) or 'nothing'}. Done: {done}."
        return Observation(text=text, data={"todo": todo})

    def act(self, state, agent, action, now):
        action = " ".join(action.lower().split())
        if action == "wait":
            return Transition(state, (Event("waited", now, "you wait", agent),))
        if action not in self.legal_actions(state, agent):
            kind = "invalid_action" if not action.startswith("do ") else "already_done"
            feedback = Feedback(
                kind, f"'{action}' is not possible; try one of: {', '.join(self.legal_actions(state, agent))}"
            )
            return Transition(
                replace(state, rejections=state.rejections + 1), (rejected(now, agent, action, feedback),)
            )
        chore = action[3:]
        running = (*state.running, (chore, agent, int(now) + DURATION))
        return Transition(
            replace(state, running=running, rejections=0), (Event(STARTED, now, f"you start {chore}", agent),)
        )

    def advance(self, state, until):
        events = []
        running = []
        done = set(state.done)
        for chore, agent, end in state.running:
            if end <= until:
                done.add(chore)
                events.append(Event(COMPLETED, end, f"{chore} is done", agent))
            else:
                running.append((chore, agent, end))
        return Transition(replace(state, time=int(until), running=tuple(running), done=frozenset(done)), tuple(events))

    def next_deadline(self, state):
        if self.outcome(state).over:
            return None
        ends = [e for _c, _a, e in state.running]
        return min(ends) if ends else state.time + 1

    def awaiting(self, state):
        return frozenset(a for a in range(state.agents) if not self._busy(state, a))

    def outcome(self, state):
        if set(state.chores) <= state.done:
            return Outcome(terminated=True, reason="all chores done")
        if state.time >= 20:
            return Outcome(truncated=True, reason="time limit")
        if state.rejections >= 5:
            return Outcome(truncated=True, reason="5 rejected actions in a row")
        return Outcome()

    def result(self, state):
        return {"progress": 100 * len(state.done) / len(state.chores), "time": state.time}

    def dump_state(self, state: ToyState) -> dict[str, Any]:
        return {
            "time": state.time,
            "chores": list(state.chores),
            "done": sorted(state.done),
            "running": [list(r) for r in state.running],
            "agents": state.agents,
            "rejections": state.rejections,
        }

    def load_state(self, raw: Mapping[str, Any]) -> ToyState:
        return ToyState(
            raw["time"],
            tuple(raw["chores"]),
            frozenset(raw["done"]),
            tuple(tuple(r) for r in raw["running"]),
            raw["agents"],
            raw["rejections"],
        )


RULES = ToyRules()
SCENARIO = {"chores": ["wash dish", "sweep floor", "water plant"]}
