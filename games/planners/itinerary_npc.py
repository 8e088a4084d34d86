"""The itinerary planner as an NPC travel assistant: each turn, plan what is left of the trip from
the current state and take the plan's first action (the itinerary descriptor names it)."""

from __future__ import annotations

from typing import Any

from games.planners.itinerary_search import plan_from_state


def npc_policy(rules: Any, state: Any, agent: int) -> str | None:
    if state.over:
        return None
    found = plan_from_state(state)
    return found.actions[0] if found.feasible and found.actions else None


def proposal(state: Any) -> dict[str, Any]:
    """The whole remaining plan, for an assistant that proposes and explains before acting."""
    found = plan_from_state(state)
    return {
        "feasible": found.feasible,
        "plan": found.actions,
        "objective": found.objective,
        "value": found.value,
        "reason": found.reason,
        "solve_seconds": found.solve_seconds,
    }
