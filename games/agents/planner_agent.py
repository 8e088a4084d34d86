"""NPCs driven by the domain's reference planner (SPEC section 6): the strongest non-LLM teammate.

A domain offers ``npc_policy(rules, state, agent) -> str | None`` in its planners package (listed in
``POLICIES``); it is asked afresh every turn from the *current* state, so the NPC adapts to what the
human did. A domain without one falls back to ``first useful action``: the first legal action that
is not a wait (a greedy but sensible teammate).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from games.agents.turns import Decision, Turn
from games.engine.episode import Policy

POLICIES: dict[str, str] = {
    "tasks": "games.planners.tasks_npc:npc_policy",
    "recipes": "games.planners.recipes_npc:npc_policy",
    "kitchen": "games.planners.kitchen_npc:npc_policy",
    "itinerary": "games.planners.itinerary_npc:npc_policy",
}

# Actions that let time pass without doing anything useful (itinerary: staying where one is).
WAITS = {"wait", "noop", "stay_in"}


def first_useful_action(rules: Any, state: Any, agent: int) -> str | None:
    legal = rules.legal_actions(state, agent)
    for action in legal:
        if action.split("(")[0].split()[0].lower() not in WAITS:
            return action
    return legal[0] if legal else None


def policy_for(domain: str) -> Policy:
    path = POLICIES.get(domain)
    if path:
        module_name, attr = path.split(":")
        try:
            return getattr(import_module(module_name), attr)  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            pass
    return first_useful_action


class PlannerBrain:
    kind = "planner"

    def __init__(self, domain: str, policy: Policy | None = None) -> None:
        self.policy = policy or policy_for(domain)

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        state = turn.state
        for agent in turn.agents:
            action = self.policy(turn.rules, state, agent)
            if action is None:
                continue
            decision.actions.append((agent, action))
            # Later agents plan around what earlier ones just took (objects, tools).
            transition = turn.rules.act(state, agent, action, turn.now)
            if transition.rejection is None:
                state = transition.state
        return decision
