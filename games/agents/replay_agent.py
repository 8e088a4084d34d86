"""Replays the actions a seat took in a stored episode, each at (or after) its original time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.agents.turns import Decision, Turn
from games.engine.episode import LoggedAction


class ReplayBrain:
    kind = "replay"

    def __init__(self, actions: Sequence[LoggedAction], agent_map: dict[int, int] | None = None) -> None:
        """``actions`` from the source episode; ``agent_map`` maps a source agent to the seat that
        replays it (default: the same number)."""
        self.queues: dict[int, list[LoggedAction]] = {}
        for logged in actions:
            if agent_map is not None and logged.agent not in agent_map:
                continue
            agent = agent_map[logged.agent] if agent_map is not None else logged.agent
            self.queues.setdefault(agent, []).append(logged)

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        positions = memory.setdefault("positions", {})
        for agent in turn.agents:
            queue = self.queues.get(agent, [])
            index = int(positions.get(str(agent), 0))
            if index < len(queue) and queue[index].time <= turn.now:
                decision.actions.append((agent, queue[index].action))
                positions[str(agent)] = index + 1
        return decision
