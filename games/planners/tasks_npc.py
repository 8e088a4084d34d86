"""A planner teammate for the tasks domain: ``npc_policy(rules, state, agent)`` (games/agents).

Asked afresh every turn from the current state, so it adapts to what the other players did. It is
the classic critical-path list-scheduling rule: among the actions that can start now, take the one
heading the longest remaining chain of work (its minutes plus the longest chain of actions that
need it), a background action before an occupying one on ties (it frees the agent sooner), then
definition order. It waits only when nothing can start. Instant (no solver) and deterministic.
"""

from __future__ import annotations

from functools import lru_cache
from graphlib import TopologicalSorter
from typing import Any

from games.domains.tasks.definition import Compiled
from games.domains.tasks.feedback import startable
from games.domains.tasks.state import TasksState
from games.domains.tasks.text import WAIT


@lru_cache(maxsize=256)
def _tails(scenario: Compiled) -> tuple[int, ...]:
    """For each action: its minutes plus the longest chain of minutes of the actions that need it.
    One pass over the actions, those that need an action before it (a recursive depth per action
    took exponential time: 34 actions each after the two before it held the studio for 27 s)."""
    children: list[list[int]] = [[] for _ in scenario.actions]
    for action in scenario.actions:
        for parent in action.requires:
            children[parent].append(action.index)
    order = TopologicalSorter({a.index: a.requires for a in scenario.actions}).static_order()
    tails = [0] * len(scenario.actions)
    for index in reversed(list(order)):  # every action after all that require it
        tails[index] = scenario.actions[index].minutes + max((tails[c] for c in children[index]), default=0)
    return tuple(tails)


def npc_policy(rules: Any, state: TasksState, agent: int) -> str | None:
    if agent not in rules.awaiting(state):
        return None
    candidates = startable(state)
    if not candidates:
        return WAIT if len(state.done) < len(state.scenario.actions) else None
    tails = _tails(state.scenario)
    best = min(candidates, key=lambda a: (-tails[a.index], not a.background, a.index))
    return best.text
