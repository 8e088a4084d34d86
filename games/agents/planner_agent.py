"""NPCs driven by the domain's reference planner (SPEC section 6): the strongest non-LLM teammate.

Each domain's descriptor names its ``npc_policy(rules, state, agent) -> str | None``
(``games.engine.registry``); it is asked afresh every turn from the *current* state, so the NPC
adapts to what the human did. A policy that does not import is an error, never a different player.
"""

from __future__ import annotations

from typing import Any

from games.agents.turns import Decision, Turn
from games.engine import registry
from games.engine.episode import Policy


def policy_for(domain: str) -> Policy:
    """The domain's planner policy, as its descriptor names it."""
    return registry.descriptor(domain).part("npc_policy")  # type: ignore[no-any-return]


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
