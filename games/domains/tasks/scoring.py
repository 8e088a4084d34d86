"""Metrics of the tasks domain (SPEC section 2): per episode, then averaged over episodes.

Progress only grows (a completed action stays complete), so the highest progress of an episode is
its final progress, first reached at its last completion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.domains.tasks.state import TasksState


def episode_result(state: TasksState) -> dict[str, Any]:
    """One episode's metrics: progress, completion, speed and the action-outcome counts."""
    progress = state.progress
    completed = len(state.done) == len(state.scenario.actions)
    reached_at = state.progress_time
    counts: dict[str, int] = {}
    per_agent = []
    for agent_counts in state.counts:
        row = agent_counts._asdict()
        per_agent.append(row)
        for name, value in row.items():
            counts[name] = counts.get(name, 0) + value
    return {
        "progress": progress,
        "completed": completed,
        "completion_time": state.progress_time if completed else None,
        # CS needs a positive time; progress 0 reached "at t=0" has speed 0.
        "completion_speed": progress / reached_at if reached_at > 0 else 0.0,
        "progress_time": reached_at,
        "time": state.time,
        "ended": state.ended,
        "counts": counts,
        "counts_per_agent": per_agent,
        "schedule": [
            {"agent": run.agent, "action": state.scenario.actions[run.action].text, "start": run.start, "end": run.end}
            for run in sorted((*state.finished, *state.running), key=lambda r: (r.start, r.agent, r.action))
        ],
    }


def aggregate(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """AS, CS, CR and CT over episodes (each a dict from ``episode_result``).

    AS: mean highest progress; CS: mean of (highest progress / minutes to first reach it);
    CR: % of episodes that reached 100; CT: mean minutes to reach 100 over completed episodes
    (None when none completed).
    """
    rows = list(results)
    if not rows:
        return {"episodes": 0, "AS": None, "CS": None, "CR": None, "CT": None}
    done_times = [row["completion_time"] for row in rows if row["completed"]]
    return {
        "episodes": len(rows),
        "AS": sum(row["progress"] for row in rows) / len(rows),
        "CS": sum(row["completion_speed"] for row in rows) / len(rows),
        "CR": 100.0 * len(done_times) / len(rows),
        "CT": sum(done_times) / len(done_times) if done_times else None,
    }
