"""The exact optimum of a tasks scenario under the full rules, with OR-Tools CP-SAT.

Model (one interval per action, integer minutes):

- the action runs during [s, s+d) and completes at s+d; a prerequisite must be complete when its
  dependent starts (s_j >= s_i + d_i);
- it occupies its agent during [s, s+d) (type 1) or [s, s+1) (type 2). Agents are identical, so
  "at most N occupancy intervals at once" (a cumulative of capacity N) is exact: any such set of
  intervals can be dealt out to N agents (interval graphs are perfect), which ``_assign`` does;
- every object it names is locked during [s, s+d): no overlap on a plain object, at most
  ``capacity`` at once on an appliance pool (1 each in resource-constrained mode);
- minimise the makespan (the last completion).

``OPTIMAL`` from CP-SAT is the proof: the objective equals the solver's proven lower bound.
The search is single-threaded with a fixed seed, so the same input gives the same plan (with
several agents a run that reaches the time limit of its first phase may differ with machine speed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from games.domains.tasks.definition import Compiled
from games.planners.budget import Budget


@dataclass(frozen=True, slots=True)
class Entry:
    agent: int
    action: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class OptimalPlan:
    makespan: int | None  # None when no plan was found in time
    optimal: bool  # proven optimal
    lower_bound: int
    entries: tuple[Entry, ...]
    status: str
    solve_seconds: float


# The LP phase's share of the budget (several agents): a third of the seconds, or of the work. It
# does little deterministic work per second (0.04 deterministic s in 3.3 s on a 100-action
# generated instance, where the default linearization then proves the optimum in 0.05 s), so with
# a work budget it gets a sliver.
LP_SHARE = 1 / 3
LP_WORK_SHARE = 0.01


def plan(
    scenario: Compiled,
    *,
    agents: int = 1,
    max_seconds: float = 10.0,
    seed: int = 0,
    hint: dict[int, int] | None = None,
    upper_bound: int | None = None,
    workers: int = 1,
    work_limit: float | None = None,
) -> OptimalPlan:
    """The minimum-makespan plan for ``agents`` agents (the scenario's compile mode sets the pools).

    ``upper_bound`` is the makespan of a known feasible plan (e.g. ``hint``'s): it caps the horizon,
    which shrinks every variable's domain. ``workers`` > 1 runs a parallel portfolio (then the plan,
    though not a proven optimum's value, may depend on thread timing). ``work_limit``: stop by
    CP-SAT's deterministic time instead, the same answer on every machine (``max_seconds`` then only
    guards, see ``games.planners.budget``).
    """
    budget = Budget(max_seconds, work_limit)
    actions = scenario.actions
    horizon = sum(a.minutes for a in actions)
    if upper_bound is not None:
        horizon = min(horizon, upper_bound)
    model = cp_model.CpModel()
    starts, ends, locks, occupancy = [], [], [], []
    for action in actions:
        start = model.new_int_var(0, horizon - action.minutes, f"s{action.index}")
        end = model.new_int_var(action.minutes, horizon, f"e{action.index}")
        locks.append(model.new_interval_var(start, action.minutes, end, f"lock{action.index}"))
        busy = 1 if action.background else action.minutes
        occupancy.append(model.new_fixed_size_interval_var(start, busy, f"busy{action.index}"))
        starts.append(start)
        ends.append(end)
    for action in actions:
        for parent in action.requires:
            model.add(starts[action.index] >= ends[parent])
    if agents == 1:
        model.add_no_overlap(occupancy)
    elif agents < len(actions):
        model.add_cumulative(occupancy, [1] * len(actions), agents)
    for obj in scenario.objects:
        users = [a.index for a in actions if obj.name in a.objects]
        if len(users) <= obj.capacity:
            continue
        if obj.capacity == 1:
            model.add_no_overlap([locks[i] for i in users])
        else:
            model.add_cumulative([locks[i] for i in users], [1] * len(users), obj.capacity)
    makespan = model.new_int_var(0, horizon, "makespan")
    model.add_max_equality(makespan, ends)
    # Redundant, for the proof: the agents' occupied minutes must fit before the makespan. The
    # cumulative implies it, but stating it gives the solver a tight lower bound at once.
    occupied = [1 if a.background else a.minutes for a in actions]
    model.add(agents * makespan >= sum(occupied))
    # The same bound around each action: everything that (transitively) needs it starts after it
    # completes, and everything it needs occupies the agents before it starts.
    descendants = _descendants(scenario)
    for action in actions:
        after = sum(occupied[i] for i in descendants[action.index])
        if after:
            model.add(agents * (makespan - ends[action.index]) >= after)
        before = sum(occupied[i] for i in range(len(actions)) if action.index in descendants[i])
        if before:
            model.add(agents * starts[action.index] >= before)
    model.minimize(makespan)
    for index, minute in (hint or {}).items():
        model.add_hint(starts[index], minute)

    lp_share = LP_SHARE if budget.work is None else LP_WORK_SHARE
    solver = budget.solver(lp_share if agents > 1 else 1.0, workers=workers, seed=seed)
    if agents > 1:
        # Two phases. First the full LP relaxation of the cumulative and no-overlap constraints: it
        # proves most published multi-agent combinations optimal quickly (0.5 s instead of no proof
        # in 30 s). On large generated instances (50-100 actions, several agents) it is the slow
        # one (no proof in 10 s where the default proves in 0.5 s), so after its share of the
        # budget the default linearization takes over, starting from the best plan and bound so far.
        solver.parameters.linearization_level = 2
    status = budget.solve(solver, model)
    if agents > 1 and status != cp_model.OPTIMAL and status != cp_model.INFEASIBLE:
        first, first_status = solver, status
        if status == cp_model.FEASIBLE:
            model.clear_hints()
            for start in starts:
                model.add_hint(start, solver.value(start))
            model.add(makespan <= int(solver.objective_value))
        model.add(makespan >= int(solver.best_objective_bound))
        solver = budget.solver(1.0, workers=workers, seed=seed)
        status = budget.solve(solver, model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE):
            solver, status = first, first_status  # no time left to improve: keep the first phase's plan
    elapsed = time.perf_counter() - budget.began
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return OptimalPlan(None, False, int(solver.best_objective_bound), (), name, elapsed)
    timed = sorted((solver.value(starts[a.index]), a.index) for a in actions)
    entries = _assign(scenario, timed, agents)
    return OptimalPlan(
        makespan=int(solver.objective_value),
        optimal=status == cp_model.OPTIMAL,
        lower_bound=int(solver.best_objective_bound),
        entries=entries,
        status=name,
        solve_seconds=elapsed,
    )


def _descendants(scenario: Compiled) -> list[set[int]]:
    """For each action, every action that needs it directly or through others."""
    children: list[list[int]] = [[] for _ in scenario.actions]
    for action in scenario.actions:
        for parent in action.requires:
            children[parent].append(action.index)
    found: list[set[int]] = []
    for action in scenario.actions:
        seen: set[int] = set()
        stack = list(children[action.index])
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(children[current])
        found.append(seen)
    return found


def _assign(scenario: Compiled, timed: list[tuple[int, int]], agents: int) -> tuple[Entry, ...]:
    """Deal the actions (sorted by start) to agents: each goes to the lowest-numbered free agent."""
    free_at = [0] * agents
    entries = []
    for start, index in timed:
        action = scenario.actions[index]
        agent = next(i for i in range(agents) if free_at[i] <= start)
        free_at[agent] = start + (1 if action.background else action.minutes)
        entries.append(Entry(agent, index, start, start + action.minutes))
    return tuple(entries)
