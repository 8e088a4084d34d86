"""The structured observation for user interfaces (shape documented in ``rules.py``)."""

from __future__ import annotations

from typing import Any

from games.domains.tasks.feedback import startable
from games.domains.tasks.state import TasksState, holders_by_object
from games.engine.values import own_cache


def view(state: TasksState, agent: int, legal: list[str]) -> dict[str, Any]:
    """``agent``'s structured view: what every agent sees alike is built once per state (its
    parts are shared between the agents' views: read them, do not change them)."""
    cached = own_cache(state, "observed")
    shared = cached.get("view")
    if shared is None:
        shared = cached["view"] = _shared_view(state)
    return {**shared[0], "agent": agent, "legal_actions": legal, **shared[1]}


def _shared_view(state: TasksState) -> tuple[dict[str, Any], dict[str, Any]]:
    scenario = state.scenario
    runs = {run.action: run for run in (*state.finished, *state.running)}
    running_ids = {run.action for run in state.running}
    ready = {a.index for a in startable(state)}
    done = state.done
    holding = holders_by_object(state)
    tasks = []
    for task in scenario.tasks:
        actions = []
        task_minutes = done_minutes = 0
        for index in task.actions:
            action = scenario.actions[index]
            task_minutes += action.minutes
            run = runs.get(index)
            if index in done:
                status = "done"
                done_minutes += action.minutes
            elif index in running_ids:
                status = "running"
            elif index in ready:
                status = "ready"
            elif all(r in done for r in action.requires):
                status = "blocked"
            else:
                status = "waiting"
            actions.append(
                {
                    "action": action.text,
                    "minutes": action.minutes,
                    "background": action.background,
                    "objects": list(action.objects),
                    "requires": list(scenario.requires_text[index]),
                    "status": status,
                    "agent": run.agent if run else None,
                    "start": run.start if run else None,
                    "end": run.end if run else None,
                }
            )
        tasks.append(
            {
                "index": task.index,
                "name": task.name,
                "title": task.title,
                "goal": task.goal,
                "progress": 100.0 * done_minutes / task_minutes if task_minutes else 100.0,
                "done": done_minutes == task_minutes,
                "actions": actions,
            }
        )
    objects = []
    for obj in scenario.objects:
        holders = holding.get(obj.name, ())
        objects.append(
            {
                "name": obj.name,
                "label": obj.label,
                "task": obj.task,
                "appliance": obj.appliance,
                "capacity": obj.capacity,
                "in_use": len(holders),
                "holders": [
                    {"action": scenario.actions[r.action].text, "agent": r.agent, "until": r.end} for r in holders
                ],
            }
        )
    head = {
        "time": state.time,
        "time_limit": state.options.time_limit,
        "over": bool(state.ended),
        "reason": state.ended,
        "progress": state.progress,
        "constrained": state.options.constrained,
    }
    tail = {
        "agents": [
            {"agent": i, "free": a.busy_until <= state.time, "busy_until": a.busy_until, "doing": a.doing}
            for i, a in enumerate(state.agents)
        ],
        "tasks": tasks,
        "objects": objects,
        "running": [
            {
                "action": scenario.actions[r.action].text,
                "agent": r.agent,
                "start": r.start,
                "end": r.end,
                "background": scenario.actions[r.action].background,
            }
            for r in state.running
        ],
    }
    return head, tail
