"""The fifth game's planner teammate: the open chore that takes longest first."""

from __future__ import annotations

from typing import Any


def npc_policy(rules: Any, state: Any, agent: int) -> str | None:
    legal = rules.legal_actions(state, agent)
    minutes = {name: length for name, length, _ in state.durations}
    useful = [a for a in legal if a != "wait"]
    if not useful:
        return legal[0] if legal else None
    return max(useful, key=lambda action: minutes.get(action.split(" ", 1)[1], 0))
