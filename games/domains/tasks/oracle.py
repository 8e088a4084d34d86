"""Checking a plan against the full rules by replaying it through ``RULES``.

A plan is a list of ``(agent, action text, start)``; the check plays every start at its minute,
in start order, and reports each action the rules refuse (an object in use, a prerequisite not yet
complete, a busy agent...). The greedy oracle ignores locks and shared appliances, so this is how
its infeasible plans are found; the optimal planner's plans are checked the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.domains.tasks.rules import MINUTES_PER_TASK, RULES


@dataclass(frozen=True, slots=True)
class Problem:
    time: int
    agent: int
    action: str
    kind: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "agent": self.agent,
            "action": self.action,
            "kind": self.kind,
            "message": self.message,
        }


@dataclass(frozen=True)
class Check:
    feasible: bool  # every action accepted and everything complete within the time limit
    makespan: int | None  # when the last action completed under the rules (None if never)
    time_limit: int
    problems: tuple[Problem, ...] = field(default=())


def check_schedule(
    definition: Mapping[str, Any],
    schedule: Iterable[tuple[int, str, int]],
    *,
    agents: int = 1,
    constrained: bool = False,
    time_limit: int | None = None,
) -> Check:
    """Replay ``(agent, action, start)`` entries through the rules and report what they refuse."""
    entries = sorted(schedule, key=lambda entry: (entry[2], entry[0]))
    limit = time_limit or MINUTES_PER_TASK * len(definition["tasks"])
    # Keep replaying after a refusal (so every problem is reported) and past the limit (so an
    # overlong plan still gets its makespan); both are then reported as problems.
    horizon = max([limit, *(start + 1 for _, _, start in entries)]) + 1000
    options = {
        "constrained": constrained,
        "time_limit": horizon,
        "max_rejected_in_row": 0,
        "rejection_costs_minute": False,
    }
    state = RULES.initial_state(definition, agents=agents, options=options)
    problems: list[Problem] = []
    for agent, action, start in entries:
        transition = RULES.act(state, agent, action, start)
        state = transition.state
        if transition.rejection is not None:
            feedback = transition.rejection
            problems.append(Problem(start, agent, action, feedback.kind, feedback.message))
    while not RULES.outcome(state).over:
        deadline = RULES.next_deadline(state)
        if deadline is None or not state.running:
            break
        state = RULES.advance(state, max(run.end for run in state.running)).state
    complete = len(state.done) == len(state.scenario.actions)
    makespan = max((run.end for run in state.finished), default=None) if complete else None
    if not complete and not problems:
        missing = [a.text for a in state.scenario.actions if a.index not in state.done]
        problems.append(Problem(state.time, 0, missing[0], "incomplete", f"never done: {', '.join(missing)}"))
    if makespan is not None and makespan > limit:
        problems.append(
            Problem(limit, 0, "", "time_limit", f"the plan ends at t={makespan}, after the {limit}-minute limit")
        )
    return Check(feasible=not problems, makespan=makespan, time_limit=limit, problems=tuple(problems))
