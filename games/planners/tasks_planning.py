"""Planning a tasks game end to end: compose the tasks, run a planner, check the plan by the rules.

The result is the JSON object ``manage.py plan tasks`` prints (SPEC section 6 and issue 3):
``makespan`` (minutes), ``optimal`` (proven), ``feasible`` (the plan obeys the full rules),
``schedule`` (``{agent, action, start, end}``), ``solve_seconds``, plus the rule check's problems.
The optimal planner also reports the greedy oracle's makespan and feasibility beside its own, so
a researcher sees where the paper's reference plan breaks the rules or is longer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.oracle import check_schedule
from games.planners import tasks_greedy, tasks_optimal

PLANNERS = ("greedy", "optimal")


def run(
    definitions: Sequence[Mapping[str, Any]],
    *,
    planner: str,
    agents: int = 1,
    constrained: bool = False,
    max_seconds: float = 10.0,
    compare: bool = True,
) -> dict[str, Any]:
    if planner not in PLANNERS:
        raise ValueError(f"unknown planner {planner!r}; choose {' or '.join(PLANNERS)}")
    if agents < 1:
        raise ValueError("--agents must be at least 1")
    definition = compose(list(definitions))
    scenario = compile_definition(definition, constrained=constrained)
    names = [task.name for task in scenario.tasks]
    greedy = tasks_greedy.plan(scenario) if planner == "greedy" or compare else None
    result: dict[str, Any] = {"tasks": names, "planner": planner, "agents": agents, "constrained": constrained}
    if planner == "greedy":
        assert greedy is not None
        # The oracle plans for one agent; with more agents, agent 0 does everything.
        schedule = [
            {"agent": 0, "action": scenario.actions[s.action].text, "start": s.start, "end": s.end}
            for s in greedy.steps
        ]
        check = check_schedule(
            definition,
            [(0, scenario.actions[s.action].text, s.start) for s in greedy.steps],
            agents=agents,
            constrained=constrained,
        )
        result.update(
            makespan=greedy.makespan,
            optimal=False,
            feasible=check.feasible,
            solve_seconds=greedy.solve_seconds,
            orderings_tried=greedy.orderings_tried,
        )
    else:
        hint = None
        greedy_check = None
        if greedy is not None:
            greedy_check = check_schedule(
                definition,
                [(0, scenario.actions[s.action].text, s.start) for s in greedy.steps],
                agents=1,
                constrained=constrained,
            )
            if greedy_check.feasible:
                hint = {s.action: s.start for s in greedy.steps}
        best = tasks_optimal.plan(scenario, agents=agents, max_seconds=max_seconds, hint=hint)
        schedule = [
            {"agent": e.agent, "action": scenario.actions[e.action].text, "start": e.start, "end": e.end}
            for e in best.entries
        ]
        check = check_schedule(
            definition,
            [(e.agent, scenario.actions[e.action].text, e.start) for e in best.entries],
            agents=agents,
            constrained=constrained,
        )
        result.update(
            makespan=best.makespan,
            optimal=best.optimal,
            feasible=bool(schedule) and check.feasible,
            solve_seconds=best.solve_seconds,
            lower_bound=best.lower_bound,
            status=best.status,
        )
        if greedy is not None and greedy_check is not None:
            result["greedy"] = {
                "makespan": greedy.makespan,
                "feasible": greedy_check.feasible,
                "problems": [p.to_json() for p in greedy_check.problems],
            }
    result["time_limit"] = check.time_limit
    result["problems"] = [p.to_json() for p in check.problems]
    result["schedule"] = schedule
    return result
