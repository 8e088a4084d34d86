"""The recipes planner as an NPC cook: ``npc_policy(rules, state, agent)`` for
``games.agents.planner_agent`` (the NPC seat, the replay's reference plan and the benchmarks).

Each time it is asked it re-plans what is left from the *current* state with the heuristic planner
(``recipes_heuristic.search``, a few milliseconds on a two-recipe scenario, so there is no need to
keep a plan between turns), then answers with the plan's step that this cook starts now, in the
"now" form ``Step(k, Recipe)`` that stays valid while time runs on; ``None`` when the plan's next
start for this cook is later (time should pass) or the cook is busy.

When the constraint-aware search finds no way round an open window (a teammate started something
the plan would not have), it searches without the delay rules, and failing that takes the first
step of the priority list that can start now: the recipe may be lost, but the cook keeps cooking.
"""

from __future__ import annotations

import math
from typing import Any

from games.domains.recipes.execution import check_start
from games.domains.recipes.state import Chunk, RecipesState
from games.domains.recipes.text import StepAction
from games.engine.episode import Policy
from games.planners.recipes_heuristic import priority_list, search


def planned_starts(state: RecipesState, agent: int, slack: int = 0) -> list[Chunk] | None:
    """The chunks the re-planned schedule adds for ``agent``, in the order it starts them, or None
    when no plan completes every recipe from here."""
    attempts = [(None, slack), (None, 0), (False, 0)] if slack else [(None, 0), (False, 0)]
    for guards, margin in attempts:
        final, _, _ = search(state, agent=agent, guards=guards, slack=margin)
        if final is not None:
            known = set(state.chunks)
            return [chunk for chunk in final.chunks if chunk not in known]
    return None


def npc_policy(rules: Any, state: RecipesState, agent: int) -> str | None:
    return decide(rules, state, agent)


def paced_policy(reaction: float) -> Policy:
    """The policy of a cook who acts ``reaction`` game seconds after things happen (a person, or
    the planner at a person's pace in ``manage.py playtest``): it keeps that much slack before a
    deadline so that reacting late does not spoil a recipe."""
    slack = max(0, math.ceil(reaction))

    def policy(rules: Any, state: RecipesState, agent: int) -> str | None:
        return decide(rules, state, agent, slack)

    return policy


def decide(rules: Any, state: RecipesState, agent: int, slack: int = 0) -> str | None:
    if state.over or agent not in rules.awaiting(state):
        return None
    names = [recipe.name for recipe in state.kitchen.recipes]
    starts = planned_starts(state, agent, slack)
    if starts is not None:
        now = [chunk for chunk in starts if chunk.start == state.time and chunk.agent == agent]
        return StepAction(now[0].step, names[now[0].recipe]).text() if now else None
    for recipe, step in priority_list(state.kitchen):
        if state.remaining(recipe, step) <= 0:
            continue
        action = StepAction(step, names[recipe])
        if check_start(state, agent, action).feedback is None:
            return action.text()
    return None
