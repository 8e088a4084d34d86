"""The study baseline: every NPC picks uniformly among its legal actions (seeded, reproducible)."""

from __future__ import annotations

import random
from typing import Any

from games.agents.turns import Decision, Turn


class RandomBrain:
    kind = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        for agent in turn.agents:
            # One generator per (seed, agent, draw number): the same game replays the same choices
            # whether or not the process restarted in between.
            draws = memory.setdefault("draws", {})
            count = int(draws.get(str(agent), 0))
            rng = random.Random(f"{self.seed}:{agent}:{count}")
            draws[str(agent)] = count + 1
            legal = turn.rules.legal_actions(turn.state, agent)
            if legal:
                decision.actions.append((agent, rng.choice(legal)))
        return decision
