"""Solver budgets: a search stopped by deterministic work gives the same answer every time, so a
generated family's optimum, bound and proof do not depend on the machine or its load."""

from __future__ import annotations

import time
from dataclasses import asdict

import pytest
from ortools.sat.python import cp_model

from games.domains.tasks.definition import compile_definition
from games.generators import tasks as task_generator
from games.generators.family import build, module, resolve
from games.planners import recipes_optimal, tasks_optimal
from games.planners.budget import WORK_PER_SECOND, Budget


def _without_time(result: object) -> dict:
    fields = asdict(result)  # type: ignore[call-overload]
    fields.pop("solve_seconds")
    return fields


def test_a_recipes_search_cut_by_its_work_budget_repeats_exactly():
    definition = build("recipes", 2, resolve(module("recipes").KNOBS, {"steps": 30}), 0)
    first = recipes_optimal.solve(definition, time_limit=60, work_limit=0.05)
    assert not first.optimal and first.bound < first.makespan, "the budget must cut this search short"
    for _ in range(2):
        assert _without_time(recipes_optimal.solve(definition, time_limit=60, work_limit=0.05)) == _without_time(first)


def test_a_tasks_search_cut_by_its_work_budget_repeats_exactly():
    knobs = resolve(task_generator.KNOBS, {"actions": 100, "agents": 3, "constrained": True, "sharing": 1.0})
    scenario = compile_definition(build("tasks", 0, knobs, 0), constrained=True)
    first = tasks_optimal.plan(scenario, agents=3, max_seconds=60, work_limit=0.01)
    assert not first.optimal, "the budget must cut this search short"
    for _ in range(2):
        again = tasks_optimal.plan(scenario, agents=3, max_seconds=60, work_limit=0.01)
        assert _without_time(again) == _without_time(first)


def test_more_work_never_gives_a_worse_answer():
    definition = build("recipes", 2, resolve(module("recipes").KNOBS, {"steps": 30}), 0)
    little = recipes_optimal.solve(definition, time_limit=60, work_limit=0.02)
    more = recipes_optimal.solve(definition, time_limit=60, work_limit=0.3)
    assert more.makespan <= little.makespan and more.bound >= little.bound


def test_phases_share_the_seconds_without_a_work_budget():
    plan = Budget(10.0)
    first = plan.solver(0.4)
    assert first.parameters.max_time_in_seconds == pytest.approx(4.0, abs=0.01)
    assert first.parameters.max_deterministic_time == float("inf")
    kept = plan.solver(1.0, reserve=0.22)
    assert kept.parameters.max_time_in_seconds == pytest.approx(7.8, abs=0.05)


def test_with_a_work_budget_phases_share_the_work_and_the_seconds_only_guard():
    plan = Budget(30.0, work=2.5)
    first = plan.solver(0.4)
    assert first.parameters.max_deterministic_time == pytest.approx(1.0)
    assert first.parameters.max_time_in_seconds == pytest.approx(30.0, abs=0.05)
    plan.worked = 1.0
    assert plan.solver(1.0, reserve=0.06).parameters.max_deterministic_time == pytest.approx(1.35)
    assert not plan.exhausted()
    plan.worked = 2.5
    assert plan.exhausted()
    guard = Budget(0.01, work=2.5)
    time.sleep(0.02)
    assert guard.exhausted(), "the wall-clock guard ends a search that the work would not"


def test_a_phase_with_its_own_rate_gets_and_is_charged_work_at_that_rate():
    plan = Budget(30.0, work=2.5)
    times = 3.0 / WORK_PER_SECOND  # a model that counts this many times the usual work per second
    fast = plan.solver(0.4, rate=3.0)
    assert fast.parameters.max_deterministic_time == pytest.approx(0.4 * 2.5 * times)
    model = cp_model.CpModel()
    x = model.new_int_var(0, 10**6, "x")
    model.add(x * 7 == 7 * 123457)
    plan.solve(fast, model, rate=3.0)
    assert plan.worked == pytest.approx(fast.deterministic_time / times)
