"""The kitchen's planner NPC policy for ``games.agents.planner_agent`` (``npc_policy(rules, state,
agent)``): the heuristic dispatcher's command for one agent.

The human is agent 0 (SPEC section 4), so the plan commands agents 1.. and leaves agent 0's hands
alone; when agent 0 is itself asked (a game with no human) every agent is planned for, and the
others then see agent 0's committed command matching that plan and plan for everyone too, so all
agents follow one consistent plan.
"""

from __future__ import annotations

from typing import Any

from games.domains.kitchen.state import KitchenState
from games.planners.kitchen_dispatcher import heuristic


def npc_policy(rules: Any, state: KitchenState, agent: int) -> str | None:
    everyone = list(range(len(state.agents)))
    if agent == 0:
        return heuristic(state, everyone).get(0)
    plan_all = heuristic(state, everyone)
    if state.pending_command(0) is not None and state.pending_command(0) == plan_all.get(0):
        return plan_all.get(agent)
    return heuristic(state, everyone[1:]).get(agent)
