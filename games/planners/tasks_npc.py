"""A planner teammate for the tasks domain: ``npc_policy(rules, state, agent)`` (games/agents).

Asked afresh every turn from the current state, so it adapts to what the other players did. It is
the classic critical-path list-scheduling rule: among the actions that can start now, take the one
heading the longest remaining chain of work (its minutes plus the longest chain of actions that
need it), a background action before an occupying one on ties (it frees the agent sooner), then
definition order. It waits only when nothing can start. Instant (no solver) and deterministic.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.domains.tasks.definition import Compiled
from games.domains.tasks.feedback import startable
from games.domains.tasks.state import TasksState
from games.domains.tasks.text import WAIT


@lru_cache(maxsize=256)
def _tails(scenario: Compiled) -> tuple[int, ...]:
    """For each action: its minutes plus the longest chain of minutes of the actions that need it."""
    children: list[list[int]] = [[] for _ in scenario.actions]
    for action in scenario.actions:
        for parent in action.requires:
            children[parent].append(action.index)
    tails = [0] * len(scenario.actions)
    for action in sorted(scenario.actions, key=lambda a: -_depth(scenario, a.index)):
        tails[action.index] = action.minutes + max((tails[c] for c in children[action.index]), default=0)
    return tuple(tails)


def _depth(scenario: Compiled, index: int) -> int:
    requires = scenario.actions[index].requires
    return 1 + max((_depth(scenario, r) for r in requires), default=0)


def npc_policy(rules: Any, state: TasksState, agent: int) -> str | None:
    if agent not in rules.awaiting(state):
        return None
    candidates = startable(state)
    if not candidates:
        return WAIT if len(state.done) < len(state.scenario.actions) else None
    tails = _tails(state.scenario)
    best = min(candidates, key=lambda a: (-tails[a.index], not a.background, a.index))
    return best.text
