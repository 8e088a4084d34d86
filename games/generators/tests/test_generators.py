"""Generated instances: deterministic per seed, playable, certified, and steered by their knobs."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from games.domains.recipes.plan import execute_plan
from games.domains.recipes.rules import RULES as RECIPE_RULES
from games.domains.tasks.oracle import check_schedule
from games.domains.tasks.rules import RULES as TASK_RULES
from games.engine.conformance import check_rules
from games.generators.family import build, generate
from games.generators.family import module as family_module
from games.generators.knobs import KnobError, resolve

SMALL = {"tasks": {"actions": 12}, "recipes": {"steps": 6}}


@pytest.mark.parametrize("domain", ["tasks", "recipes"])
def test_the_same_seed_and_knobs_give_the_same_instances_byte_for_byte(domain):
    first = generate(domain, count=3, seed=11, knobs=SMALL[domain])
    again = generate(domain, count=3, seed=11, knobs=SMALL[domain])
    strip = [{k: v for k, v in i.items() if k != "solve_seconds"} for i in first]
    assert json.dumps(strip, sort_keys=True) == json.dumps(
        [{k: v for k, v in i.items() if k != "solve_seconds"} for i in again], sort_keys=True
    )
    other = generate(domain, count=3, seed=12, knobs=SMALL[domain])
    assert [i["definition"] for i in other] != [i["definition"] for i in first]
    assert len({json.dumps(i["definition"], sort_keys=True) for i in first}) == 3, "instances of a family differ"
    assert len({i["slug"] for i in first}) == 3


@pytest.mark.parametrize(
    "knobs", [{"actions": 10}, {"actions": 20, "agents": 2, "constrained": True, "sharing": 0.6, "background": 0.6}]
)
def test_generated_tasks_pass_conformance_and_their_optimal_plan_replays_through_the_rules(knobs):
    for instance in generate("tasks", count=3, seed=5, knobs=knobs):
        definition, agents, constrained = (
            instance["definition"],
            knobs.get("agents", 1),
            knobs.get("constrained", False),
        )
        check_rules(TASK_RULES, definition, agents=agents, options={"constrained": constrained})
        assert instance["optimal"], instance["slug"]
        assert instance["lower_bound"] == instance["optimal_makespan"] <= instance["greedy_makespan"]
        entries = [(e["agent"], e["action"], e["start"]) for e in instance["plan"]]
        check = check_schedule(definition, entries, agents=agents, constrained=constrained)
        assert check.feasible, check.problems
        assert check.makespan == instance["optimal_makespan"]
        assert check.makespan <= check.time_limit, "the game's default time limit leaves room for the optimum"


def test_generated_recipe_pairs_pass_conformance_and_their_optimal_plan_executes():
    for instance in generate("recipes", count=3, seed=5, knobs={"steps": 8, "constraints": 0.6, "tightness": 0.9}):
        definition = instance["definition"]
        check_rules(RECIPE_RULES, definition, options={"time_constraints": True})
        assert instance["optimal"], instance["slug"]
        assert instance["lower_bound"] <= instance["optimal_makespan"] <= instance["greedy_makespan"]
        run = execute_plan(definition, [tuple(item) for item in instance["plan"]], time_constraints=True)
        assert run.feasible, run.error
        assert max(end for end in (c.end for c in run.state.chunks)) == instance["optimal_makespan"]


def _mean_stat(domain, knobs, stat, seeds=range(4)):
    module = family_module(domain)
    values = []
    for seed in seeds:
        resolved = resolve(module.KNOBS, knobs)
        definition = build(domain, seed, resolved, 0)
        values.append(module.evaluate(definition, resolved, 5.0)["stats"][stat])
    return statistics.mean(values)


@pytest.mark.parametrize(
    ("knob", "low", "high", "stat", "direction"),
    [
        ("actions", 10, 30, "actions", +1),
        ("background", 0.1, 0.7, "background_share", +1),
        ("background", 0.0, 0.7, "parallelism", +1),
        ("depth", 2, 6, "depth", +1),
        ("branching", 1, 3, "prerequisites_per_action", +1),
        ("sharing", 0.0, 0.8, "object_sharing", +1),
        ("appliances", 0, 3, "appliance_uses", +1),
        ("agents", 1, 3, "parallelism", +1),
    ],
)
def test_each_tasks_knob_moves_its_stat_the_way_it_names(knob, low, high, stat, direction):
    base = {"actions": 16, "background": 0.4}
    lower = _mean_stat("tasks", {**base, knob: low}, stat)
    higher = _mean_stat("tasks", {**base, knob: high}, stat)
    assert (higher - lower) * direction > 0, (lower, higher)


def test_constrained_appliances_lower_parallelism():
    base = {"actions": 16, "background": 0.6, "appliances": 1, "agents": 2}
    shared = _mean_stat("tasks", {**base, "constrained": False}, "parallelism")
    constrained = _mean_stat("tasks", {**base, "constrained": True}, "parallelism")
    assert constrained < shared


@pytest.mark.parametrize(
    ("knob", "low", "high", "stat", "direction"),
    [
        ("steps", 4, 8, "actions", +1),
        ("recipes", 1, 3, "recipes", +1),
        ("autonomous", 0.1, 0.7, "autonomous_share", +1),
        ("autonomous", 0.0, 0.6, "parallelism", +1),
        ("interruptible", 0.0, 0.8, "interruptible_share", +1),
        ("contention", 0.0, 1.0, "appliance_uses", +1),
        ("constraints", 0.0, 0.8, "time_constraints", +1),
        ("tightness", 0.0, 1.0, "mean_window_seconds", -1),
    ],
)
def test_each_recipes_knob_moves_its_stat_the_way_it_names(knob, low, high, stat, direction):
    base = {"steps": 6, "constraints": 0.5}
    lower = _mean_stat("recipes", {**base, knob: low}, stat)
    higher = _mean_stat("recipes", {**base, knob: high}, stat)
    assert (higher - lower) * direction > 0, (lower, higher)


def test_bad_knobs_are_refused_with_the_knob_named():
    with pytest.raises(KnobError, match="actions: must be from 5 to 100"):
        generate("tasks", count=1, seed=0, knobs={"actions": 500})
    with pytest.raises(KnobError, match="unknown knob colour"):
        generate("tasks", count=1, seed=0, knobs={"colour": 1})
    with pytest.raises(KnobError, match="background: expected a number"):
        generate("tasks", count=1, seed=0, knobs={"background": "lots"})
    with pytest.raises(KnobError, match="unknown domain"):
        generate("chess", count=1, seed=0)


@pytest.mark.parametrize("domain", ["kitchen", "itinerary"])
def test_kitchen_and_itinerary_families_repeat_byte_for_byte(domain):
    first = generate(domain, count=2, seed=3)
    again = generate(domain, count=2, seed=3)
    assert json.dumps([i["definition"] for i in first], sort_keys=True) == json.dumps(
        [i["definition"] for i in again], sort_keys=True
    )
    assert [i["optimal_makespan"] for i in first] == [i["optimal_makespan"] for i in again]


def test_generated_kitchen_levels_pass_conformance_and_the_dispatcher_serves_some():
    from games.domains.kitchen.rules import RULES as KITCHEN_RULES

    served = 0
    for instance in generate("kitchen", count=3, seed=2, knobs={"agents": 2, "alpha": 2.5, "depth": 1}):
        check_rules(KITCHEN_RULES, instance["definition"], agents=2)
        assert 0.0 <= instance["optimal_makespan"] <= 1.0 and instance["optimal"] is False
        served += instance["stats"]["completed"]
    assert served > 0, "every level is makeable: the heuristic dispatcher completes orders"


@pytest.mark.parametrize("tools", [2, 4])
def test_no_generated_kitchen_product_goes_back_into_the_tool_that_made_its_main_ingredient(tools):
    # depth-2 books named dishes "roastedRoastedSeaweedSheet": a product of level k now goes into a
    # tool other than the one that made its level k-1 ingredient (with two tool kinds, the chopboard)
    import random

    from games.generators import kitchen

    products = 0
    for seed in range(40):
        knobs = {"dishes": 4, "depth": 3, "tools": tools, "agents": 2, "alpha": 1.5, "episodes": 1}
        recipes = kitchen.build(random.Random(seed), knobs, 0)["recipes"]
        for name, recipe in recipes.items():
            adjective = kitchen.ADJECTIVES[recipe["tool"]]
            inner = name.removeprefix(adjective)  # named for its main ingredient: "roasted" + "Potato"
            assert not inner.lower().startswith(adjective), (seed, name, recipe)
            products += any(i in recipes for i in recipe["ingredients"])
    assert products > 100  # many products were made of products


@pytest.mark.parametrize("knobs", [{"cities": 2}, {"cities": 0, "constraints": 3}, {"cities": 1, "constraints": 2}])
def test_generated_briefs_pass_conformance_and_the_planner_plan_scores_full_marks_on_the_rules(knobs):
    from games.domains.itinerary.rules import RULES as ITINERARY_RULES

    for instance in generate("itinerary", count=2, seed=4, knobs={**knobs, "tightness": 1.0}):
        check_rules(ITINERARY_RULES, instance["definition"])
        assert instance["optimal"], instance["status"]
        assert instance["stats"]["score"] >= 80.0
        assert not [c for c in instance["plan"] if not c.strip()]


def test_a_combined_trip_visits_every_town_its_cities_knob_adds():
    """cities 1 with two sights drew both in the origin: a trip that stayed at home for 0 CNY."""
    for seed in range(6):
        for instance in generate("itinerary", count=2, seed=seed, knobs={"cities": 1, "constraints": 2}):
            definition = instance["definition"]
            origin = definition["origin_city"]
            places = {p["name"]: p["city"] for p in definition["world"]["places"]}
            towns = {places[goal["spot"]] for goal in definition["constraints"]["spot_minutes"]}
            assert towns - {origin}, (seed, origin, towns)
            assert instance["optimal_makespan"] > 0, (seed, definition["brief"])


@pytest.mark.parametrize(
    ("knob", "low", "high", "stat"),
    [
        ("dishes", 1, 4, "dishes"),
        ("depth", 1, 3, "depth"),
        ("tools", 2, 6, "tool_kinds"),
        ("alpha", 1.0, 3.0, "task_interval"),
    ],
)
def test_each_kitchen_knob_moves_its_stat_the_way_it_names(knob, low, high, stat):
    assert _mean_stat("kitchen", {knob: low}, stat) < _mean_stat("kitchen", {knob: high}, stat)


def test_more_time_per_order_and_more_agents_raise_the_dispatchers_cos():
    base = {"depth": 1, "dishes": 2}
    assert _mean_stat("kitchen", {**base, "alpha": 1.0, "agents": 1}, "cos") < _mean_stat(
        "kitchen", {**base, "alpha": 3.0, "agents": 3}, "cos"
    )


@pytest.mark.parametrize(
    ("knob", "low", "high", "stat", "direction"),
    [
        ("cities", 1, 3, "cities", +1),
        ("days", 1, 3, "city_days", +1),
        ("constraints", 1, 4, "sights", +1),
        ("tightness", 0.0, 1.0, "budget", -1),
    ],
)
def test_each_itinerary_knob_moves_its_stat_the_way_it_names(knob, low, high, stat, direction):
    lower = _mean_stat("itinerary", {knob: low}, stat)
    higher = _mean_stat("itinerary", {knob: high}, stat)
    assert (higher - lower) * direction > 0, (lower, higher)


_OTHER_PROCESS = """
import json, sys
from games.generators.family import generate
families = json.loads(sys.argv[1])
out = {domain: generate(domain, count=2, seed=6, knobs=knobs) for domain, knobs in families.items()}
for instances in out.values():
    for instance in instances:
        instance.pop("solve_seconds")
print(json.dumps(out, sort_keys=True))
"""
_FAMILIES = {
    "tasks": {"actions": 10, "agents": 2},
    "recipes": {"steps": 6, "interruptible": 0.6},
    "kitchen": {"dishes": 2, "depth": 1},
    "itinerary": {"cities": 1},
}


def test_every_domain_repeats_byte_for_byte_in_other_processes_with_other_hash_seeds():
    # Python salts str hashes per process: a generator that iterated over a set of names would
    # differ between these runs. Only solve_seconds may differ.
    outputs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _OTHER_PROCESS, json.dumps(_FAMILIES)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=Path(__file__).resolve().parents[3],
        )
        outputs.append(done.stdout)
    here = {domain: generate(domain, count=2, seed=6, knobs=knobs) for domain, knobs in _FAMILIES.items()}
    for instances in here.values():
        for instance in instances:
            instance.pop("solve_seconds")
    assert outputs[0] == outputs[1] == json.dumps(here, sort_keys=True) + "\n"


def test_a_generated_instance_is_played_as_its_figures_were_computed_without_being_told():
    """The tasks `constrained` and kitchen `alpha` knobs steered the optimum and the CoS but were not
    written into the definitions: their games had every appliance and ran at alpha 1.0."""
    from games.domains.kitchen.state import build_level

    knobs = {"actions": 16, "background": 0.6, "appliances": 1, "agents": 2}
    (free,) = generate("tasks", count=1, seed=3, knobs={**knobs, "constrained": False})
    (held,) = generate("tasks", count=1, seed=3, knobs={**knobs, "constrained": True})
    assert free["definition"]["tasks"] == held["definition"]["tasks"] and "constrained" not in free["definition"]

    def pools(definition):
        state = TASK_RULES.initial_state(definition, agents=2)  # a game's options say nothing
        return state.options.constrained, {o.name: o.capacity for o in state.scenario.objects if o.appliance}

    assert pools(free["definition"])[0] is False and max(pools(free["definition"])[1].values()) > 1
    assert pools(held["definition"]) == (True, dict.fromkeys(pools(free["definition"])[1], 1))
    (level,) = generate("kitchen", count=1, seed=3, knobs={"alpha": 2.5, "depth": 1, "dishes": 2})
    assert build_level(level["definition"], seed=0, options=None).alpha == 2.5
    assert build_level(level["definition"], seed=0, options={"alpha": 1.0}).alpha == 1.0  # a game may still choose


def test_a_tasks_definition_says_constrained_with_true_or_false():
    from games.domains.tasks.definition import DefinitionError, validate

    (instance,) = generate("tasks", count=1, seed=3, knobs={"actions": 6})
    with pytest.raises(DefinitionError, match="constrained: must be true"):
        validate({**instance["definition"], "constrained": "yes"})
