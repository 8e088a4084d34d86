"""The recipes planners: heuristic and CP-SAT plans replay as feasible through the rules."""

from __future__ import annotations

import json

import pytest

from games.domains.recipes.dataset import read_instances
from games.domains.recipes.plan import execute_plan
from games.domains.recipes.tests.kitchens import BAKE, MUFFINS, ROAST, SOUP, kitchen
from games.planners import recipes_heuristic, recipes_optimal


def replays(definition, plan, constraints):
    run = execute_plan(definition, plan, time_constraints=constraints)
    return run.feasible and run.state.status == "success", run


@pytest.mark.parametrize("constraints", [True, False])
def test_heuristic_plan_replays(constraints):
    definition = kitchen(BAKE, SOUP, MUFFINS)
    found = recipes_heuristic.plan(definition, time_constraints=constraints)
    ok, run = replays(definition, found.plan, constraints)
    assert ok, run.error
    assert found.makespan == max(start + duration for _, _, duration, start in found.plan)


def test_heuristic_lists_long_autonomous_steps_first_with_their_prerequisites():
    state = recipes_heuristic.initial_state(kitchen(BAKE, SOUP))
    listed = recipes_heuristic.priority_list(state.kitchen)
    # longest autonomous step is Bake's 20-minute bake, preceded by its unplaced prerequisites
    assert listed[:4] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert listed.index((1, 0)) < listed.index((1, 1)) < listed.index((1, 2))


def test_heuristic_delays_the_step_a_constraint_runs_from():
    # Soup's stir must start within a minute of the heat ending, and the cook is busy mixing:
    # the heuristic starts the heat late enough rather than spoiling the soup.
    found = recipes_heuristic.plan(kitchen(BAKE, SOUP), time_constraints=True)
    ok, _ = replays(kitchen(BAKE, SOUP), found.plan, True)
    assert ok
    starts = {(recipe, step): (start, start + duration) for step, recipe, duration, start in found.plan}
    assert starts[("Soup", 2)][0] - starts[("Soup", 1)][1] <= 60


def test_heuristic_does_not_reset_a_preheated_oven():
    definition = kitchen(MUFFINS, ROAST)
    found = recipes_heuristic.plan(definition, time_constraints=False)
    ok, run = replays(definition, found.plan, False)
    assert ok, run.error


def test_heuristic_stops_after_its_work_limit_counted_not_timed():
    # every node checks each step not yet started: 5 recipes of 100 steps made 5.4 million checks
    # (21 s) within the node limit. The checks are counted, so the search stops the same way on
    # every machine (generated instances are byte-for-byte the same everywhere)
    definition = kitchen(BAKE, SOUP, MUFFINS)
    found = recipes_heuristic.plan(definition, time_constraints=True)
    assert found.feasible and 0 < found.checks < recipes_heuristic.WORK_LIMIT
    limit = found.checks // 2
    cut = recipes_heuristic.plan(definition, time_constraints=True, work_limit=limit)
    assert cut.plan is None and cut.notes == [f"no feasible plan found within {limit} step checks"]
    assert limit <= cut.checks < found.checks and cut.nodes < found.nodes
    again = recipes_heuristic.plan(definition, time_constraints=True, work_limit=limit)
    assert (again.checks, again.nodes) == (cut.checks, cut.nodes)
    state = recipes_heuristic.initial_state(definition)
    assert recipes_heuristic.search(state, work_limit=limit)[0] is None
    assert recipes_heuristic.search(state, work_limit=found.checks)[0] is not None


def test_a_long_chain_of_steps_is_listed_and_bounded_without_recursion():
    # a recipe of 1,200 steps each after the one before: the priority list and CP-SAT's heads and
    # tails recursed once a step, past Python's recursion limit (a chain of 600 overflowed the latter)
    from games.domains.recipes.kitchen import load_kitchen
    from games.domains.recipes.tests.kitchens import step

    steps = [step(i, 60, needs=(i - 1,) if i else ()) for i in range(1199)]
    chain = load_kitchen(kitchen({"name": "Chain", "steps": [*steps, step(1199, 1800, auto=True, needs=(1198,))]}))
    assert recipes_heuristic.priority_list(chain) == [(0, i) for i in range(1200)]
    heads, tails = recipes_optimal._heads_tails(chain, 60)
    assert (heads[(0, 0)], heads[(0, 1199)]) == (0, 1199)  # in minutes
    assert (tails[(0, 0)], tails[(0, 1198)], tails[(0, 1199)]) == (1198 + 30, 30, 0)


def _long_pair(bake: int) -> dict:
    # Two recipes with a 61-second step and 12-hour interruptible ones: one-second units, so the
    # relaxation would be 172,800 unit slots (it took 6-15 s to build before the budget counted).
    from games.domains.recipes.tests.kitchens import step

    def recipe(name: str, steps: list[dict]) -> dict:
        return {"name": name, "steps": steps}

    first = [step(0, 61), step(1, 12 * 3600, split=True, needs=(0,)), step(2, 12 * 3600, split=True, needs=(1,))]
    if not bake:
        return kitchen(recipe("A", first), recipe("B", first))
    second = [*first[:2], step(2, bake, auto=True, needs=(1,)), step(3, 3 * 3600, split=True, needs=(2,))]
    return kitchen(recipe("A", second), recipe("B", [*second[:2], step(2, 7200, auto=True, needs=(1,)), second[3]]))


def test_the_cooks_work_proves_an_optimum_without_building_the_relaxation(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("built a model for a bound the cook's work alone gives")

    definition = _long_pair(0)
    heuristic = recipes_heuristic.plan(definition, time_constraints=True)
    monkeypatch.setattr(recipes_optimal.recipes_time_indexed, "model", refuse)
    real_build = recipes_optimal._build
    monkeypatch.setattr(
        recipes_optimal, "_build", lambda *a, **k: refuse() if k.get("relaxed") else real_build(*a, **k)
    )
    solved = recipes_optimal.solve(definition, time_limit=20, heuristic=heuristic)
    cook = 2 * (61 + 2 * 12 * 3600)
    assert solved.optimal and solved.makespan == solved.bound == cook == heuristic.makespan


def test_a_relaxation_too_large_to_build_leaves_the_static_bound(monkeypatch):
    from games.domains.recipes.kitchen import load_kitchen

    definition = _long_pair(13 * 3600)
    real_build = recipes_optimal._build
    monkeypatch.setattr(
        recipes_optimal,
        "_build",
        lambda *a, **k: pytest.fail("built the relaxation") if k.get("relaxed") else real_build(*a, **k),
    )
    solved = recipes_optimal.solve(definition, time_limit=4)
    parsed = load_kitchen(definition)
    heads, tails = recipes_optimal._heads_tails(parsed, 1)
    assert recipes_optimal._slot_count(parsed, 1, solved.makespan - 1, heads, tails) > recipes_optimal.SLOTS
    assert solved.bound == recipes_optimal._static_floor(parsed, 1, (heads, tails)) < solved.makespan
    assert not solved.optimal
    ok, run = replays(definition, solved.plan, True)
    assert ok, run.error


@pytest.mark.parametrize("constraints", [True, False])
def test_optimal_beats_or_ties_the_heuristic_and_proves_it(constraints):
    definition = kitchen(BAKE, SOUP, MUFFINS, ROAST)
    heuristic = recipes_heuristic.plan(definition, time_constraints=constraints)
    solved = recipes_optimal.solve(definition, time_constraints=constraints, time_limit=20)
    assert solved.optimal and solved.gap == 0.0 and solved.bound == solved.makespan
    assert solved.makespan <= heuristic.makespan
    ok, run = replays(definition, solved.plan, constraints)
    assert ok, run.error
    assert run.state.chunks and max(c.end for c in run.state.chunks) == solved.makespan


def test_optimal_shares_one_preheat_between_two_recipes():
    definition = kitchen(BAKE, MUFFINS)
    solved = recipes_optimal.solve(definition, time_constraints=True, time_limit=20)
    preheats = [start for step, recipe, _, start in solved.plan if step == 0 and recipe in {"Bake", "Muffins"}]
    assert len(preheats) == 2
    ok, _ = replays(definition, solved.plan, True)
    assert ok
    # Both bakes (20 and 15 min) need the oven after one 10-minute preheat; mixing and pouring fit
    # inside the preheat, so the optimum is 10 + 15 + 20 minutes only if the preheat is shared.
    assert preheats[0] == preheats[1]
    assert solved.makespan == (10 + 15 + 20) * 60


def test_optimal_pauses_an_interruptible_step_to_start_the_oven():
    # The cook pauses the filling for an instant to put the base in as soon as the oven is hot
    # (nothing can be started while the cook is busy): the plan cuts the filling in two.
    tart = kitchen(
        {
            "name": "Tart",
            "steps": [
                {
                    "index": 0,
                    "text": "Preheat",
                    "duration": 300,
                    "autonomous": True,
                    "physical": {"oven": {"update": {"temperature": 350}}},
                },
                {
                    "index": 1,
                    "text": "Bake the base",
                    "duration": 600,
                    "autonomous": True,
                    "prerequisites": [0],
                    "physical": {"oven": {"require": {"temperature": 350}}},
                },
                {"index": 2, "text": "Make the filling", "duration": 900, "interruptible": True},
            ],
        }
    )
    solved = recipes_optimal.solve(tart, time_limit=20)
    assert solved.optimal and solved.makespan == 900
    assert sorted((start, duration) for step, _, duration, start in solved.plan if step == 2) == [(0, 300), (300, 600)]
    ok, run = replays(tart, solved.plan, True)
    assert ok, run.error


def test_optimal_uses_a_second_chunk_to_fit_a_tight_window():
    # Oiling, heating and searing must follow each other without a second's wait; the chopping
    # (interruptible) fills the heating time only if it can be split around them.
    pan = {
        "name": "Pan",
        "steps": [
            {"index": 0, "text": "Oil the pan", "duration": 60},
            {
                "index": 1,
                "text": "Heat it",
                "duration": 120,
                "autonomous": True,
                "prerequisites": [0],
                "time_constraints": {"0": 0},
            },
            {"index": 2, "text": "Sear", "duration": 60, "prerequisites": [1], "time_constraints": {"1": 0}},
        ],
    }
    chop = {"name": "Chop", "steps": [{"index": 0, "text": "Chop", "duration": 600, "interruptible": True}]}
    definition = kitchen(pan, chop)
    whole = recipes_optimal.solve(definition, chunks=1, time_limit=20)
    split = recipes_optimal.solve(definition, chunks=2, time_limit=20)
    assert (whole.makespan, split.makespan) == (840, 720) and split.optimal
    for solved in (whole, split):
        ok, run = replays(definition, solved.plan, True)
        assert ok, run.error


def test_optimal_is_claimed_only_when_plans_with_more_chunks_cannot_do_better():
    # Pulse: three one-minute stirs, each due the instant a two-minute rest ends (windows of 0),
    # so the cook is taken at minutes 2, 5 and 8. The six-minute chopping fills the three gaps
    # before them only in three chunks: 9 minutes. In two chunks the best is longer, and the
    # relaxation (any number of chunks) says so instead of calling it optimal.
    steps = []
    for pulse in range(3):
        rest, stir = 2 * pulse, 2 * pulse + 1
        after = {"prerequisites": [rest - 1], "time_constraints": {str(rest - 1): 0}} if pulse else {}
        steps.append({"index": rest, "text": "Rest", "duration": 120, "autonomous": True, **after})
        steps.append(
            {"index": stir, "text": "Stir", "duration": 60, "prerequisites": [rest], "time_constraints": {str(rest): 0}}
        )
    pulse = {"name": "Pulse", "steps": steps}
    chop = {"name": "Chop", "steps": [{"index": 0, "text": "Chop", "duration": 360, "interruptible": True}]}
    definition = kitchen(pulse, chop)
    two = recipes_optimal.solve(definition, chunks=2, time_limit=20)
    three = recipes_optimal.solve(definition, chunks=3, time_limit=20)
    assert (three.makespan, three.optimal, three.bound) == (540, True, 540)
    assert two.makespan > 540 and not two.optimal and two.bound == 540 and two.gap > 0
    assert "not ruled out" in " ".join(two.notes)
    for solved in (two, three):
        ok, run = replays(definition, solved.plan, True)
        assert ok, run.error


@pytest.mark.datasets
@pytest.mark.slow
@pytest.mark.parametrize("constraints", [True, False], ids=["constraints-on", "constraints-off"])
def test_all_65_instances_optimal_plans_replay_feasible(datasets_dir, constraints):
    instances = read_instances(json.loads((datasets_dir / "recipe2plan" / "cooking.json").read_text()))
    assert len(instances) == 65
    for name, definition in instances.items():
        heuristic = recipes_heuristic.plan(definition, time_constraints=constraints)
        ok, run = replays(definition, heuristic.plan, constraints)
        assert ok, (name, "heuristic", run.error)
        solved = recipes_optimal.solve(definition, time_constraints=constraints, time_limit=3)
        ok, run = replays(definition, solved.plan, constraints)
        assert ok, (name, "optimal", run.error)
        assert solved.makespan <= heuristic.makespan, name
        assert solved.optimal or solved.gap is not None, name
