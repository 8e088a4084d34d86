"""Running kitchen episodes headlessly with a dispatcher, and the five-α sweep that gives CoS.

``play_episode`` is the fast loop (every agent commanded by one dispatcher, one call per step);
``sweep`` runs it over α values and episodes and reports, per α, the completed and failed orders
and their success rate, and CoS, the mean success rate over the α values (SPEC section 4).
Episode ``k`` uses seed ``k``, so two dispatchers face the same orders.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from games.domains.kitchen.rules import RULES
from games.domains.kitchen.state import KitchenState
from games.domains.kitchen.world import DEFAULT_ALPHAS
from games.planners.kitchen_dispatcher import Dispatcher


def alpha_key(alpha: float | str) -> str:
    """α as the user wrote it (``"2"`` stays ``"2"``); numbers as ``1.0``, ``2.5``."""
    return alpha.strip() if isinstance(alpha, str) else repr(float(alpha))


def play_episode(
    scenario: Mapping[str, Any],
    dispatcher: Dispatcher,
    *,
    agents: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> KitchenState:
    """Play one episode to its end with ``dispatcher`` commanding every agent."""
    state = RULES.initial_state(scenario, seed=seed, agents=agents, options=options)
    everyone = list(range(agents))
    while state.step < state.level.max_steps:
        for agent, command in dispatcher(state, everyone).items():
            state = RULES.act(state, agent, command, state.step).state
        state = RULES.advance(state, state.step + 1).state
    return state


def sweep(
    scenario: Mapping[str, Any],
    dispatcher: Dispatcher,
    *,
    agents: int,
    episodes: int = 1,
    alphas: Iterable[float | str] = DEFAULT_ALPHAS,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Per α: orders completed, failed and pending (summed over episodes), success rate; and CoS."""
    started = time.perf_counter()
    by_alpha: dict[str, dict[str, Any]] = {}
    for alpha in alphas:
        totals = {"completed": 0, "failed": 0, "pending": 0, "accepted": 0, "rejected": 0, "idle": 0}
        for episode in range(episodes):
            state = play_episode(
                scenario, dispatcher, agents=agents, seed=episode, options={**(options or {}), "alpha": float(alpha)}
            )
            result = RULES.result(state)
            for key in ("completed", "failed", "pending"):
                totals[key] += result[key]
            for agent in result["agents"]:
                for key in ("accepted", "rejected", "idle"):
                    totals[key] += agent[key]
        finished = totals["completed"] + totals["failed"]
        by_alpha[alpha_key(alpha)] = {
            **totals,
            "task_interval": state.level.task_interval,
            "success_rate": round(totals["completed"] / finished, 4) if finished else 0.0,
        }
    rates = [entry["success_rate"] for entry in by_alpha.values()]
    return {
        "agents": agents,
        "episodes": episodes,
        "by_alpha": by_alpha,
        "cos": round(sum(rates) / len(rates), 4) if rates else 0.0,
        "seconds": round(time.perf_counter() - started, 3),
    }
