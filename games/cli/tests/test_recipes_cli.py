"""``manage.py plan|replay|describe|score recipes``: the commands as the issue specifies them."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from games.domains.recipes.dataset import read_instances
from games.planners.recipes_heuristic import plan_items


@pytest.fixture
def data(datasets_dir):
    return datasets_dir / "recipe2plan" / "cooking.json"


def run(*args) -> object:
    out = io.StringIO()
    call_command(*args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.datasets
def test_plan_one_instance_with_each_planner(data):
    for planner in ("heuristic", "optimal"):
        result = run(
            "plan",
            "recipes",
            "--data",
            str(data),
            "--instance",
            "Cobbler_Pancakes",
            "--planner",
            planner,
            "--time-constraints",
            "on",
            "--time-limit",
            "20",
        )
        assert {"instance", "makespan_seconds", "optimal", "gap", "plan", "solve_seconds"} <= set(result)
        assert result["instance"] == "Cobbler_Pancakes" and result["replay_feasible"] is True
        assert all(len(item) == 4 and isinstance(item[1], str) for item in result["plan"])
    assert result["optimal"] is True and result["gap"] == 0.0


@pytest.mark.datasets
def test_plan_several_instances_gives_a_list(data):
    result = run(
        "plan",
        "recipes",
        "--data",
        str(data),
        "--instance",
        "Cobbler_Pancakes",
        "--instance",
        "Cobbler_Okra-Fry",
        "--planner",
        "heuristic",
        "--time-constraints",
        "off",
    )
    assert [r["instance"] for r in result] == ["Cobbler_Pancakes", "Cobbler_Okra-Fry"]


@pytest.mark.datasets
def test_plan_refuses_unknown_instances_and_bad_switches(data):
    with pytest.raises(CommandError, match="unknown instance Nope; instances are named like Cobbler_Pancakes"):
        run("plan", "recipes", "--data", str(data), "--instance", "Nope")
    with pytest.raises(CommandError, match="does not exist"):
        run("plan", "recipes", "--data", str(data) + ".missing", "--instance", "all")


@pytest.mark.datasets
def test_replay_a_published_plan_file(data, tmp_path):
    instances = read_instances(json.loads(data.read_text()))
    names = list(instances)[:3]
    published = {
        name: {
            "plan_wo_restriction": [list(i) for i in plan_items(instances[name], time_constraints=False)],
            "plan_w_restriction": [list(i) for i in plan_items(instances[name], time_constraints=True)],
        }
        for name in names
    }
    published[names[1]]["plan_w_restriction"] = None
    broken = published[names[2]]["plan_w_restriction"]
    step_two = next(item for item in broken if item[0] == 2 and item[1] == "Cobbler")
    step_two[3] = 0  # the microwave step before the butter is measured
    path = tmp_path / "plans.json"
    path.write_text(json.dumps(published))

    results = run(
        "replay",
        "recipes",
        "--data",
        str(data),
        "--plans",
        str(path),
        "--key",
        "plan_w_restriction",
        "--time-constraints",
        "on",
    )
    assert [r["instance"] for r in results] == names
    first, missing, failed = results
    assert first["feasible"] and first["success"] and first["error"] is None
    assert first["progress"] == 100.0 and first["r_efficiency"] == 100.0 and first["se"] == 100.0
    assert first["makespan_seconds"] > 0 and first["efficiency"] > 0
    assert missing["error"]["kind"] == "missing" and not missing["feasible"]
    assert not failed["feasible"] and failed["error"]["kind"] == "prerequisite_missing"
    assert "step 1 of Cobbler first" in failed["error"]["message"]

    easy = run(
        "replay",
        "recipes",
        "--data",
        str(data),
        "--plans",
        str(path),
        "--key",
        "plan_wo_restriction",
        "--time-constraints",
        "off",
    )
    assert all(r["success"] for r in easy)


@pytest.mark.datasets
def test_replay_a_single_plan_against_the_optimum(data, tmp_path):
    instances = read_instances(json.loads(data.read_text()))
    plan = [list(i) for i in plan_items(instances["Cobbler_Pancakes"], time_constraints=True)]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    result = run(
        "replay",
        "recipes",
        "--data",
        str(data),
        "--instance",
        "Cobbler_Pancakes",
        "--plan",
        str(path),
        "--time-constraints",
        "on",
        "--against-optimal",
        "--time-limit",
        "20",
    )
    assert result["success"] and result["optimal_makespan_seconds"] <= result["makespan_seconds"]
    assert result["efficiency_vs_optimal"] <= 100.0
    path.write_text('[[0, "Cobbler", "ten", 0]]')
    result = run("replay", "recipes", "--data", str(data), "--instance", "Cobbler_Pancakes", "--plan", str(path))
    assert result["error"]["kind"] == "format" and "whole numbers" in result["error"]["message"]


@pytest.mark.datasets
def test_describe_and_score(data, tmp_path):
    described = run("describe", "recipes", "--data", str(data), "--instance", "Cobbler_Pancakes")
    assert described[0]["steps"] == 24 and described[0]["appliances"] == ["microwave", "oven", "stove"]
    actions = tmp_path / "actions.txt"
    actions.write_text("Step(0, Cobbler, 00:10:00, 00:00:00)\nStep(1, Cobbler, 00:02:00, 00:00:00)\n")
    scored = run("score", "recipes", "--data", str(data), "--instance", "Cobbler_Pancakes", "--actions", str(actions))
    assert scored["error"] is None and scored["progress"] == round(100 * 2 / 24, 2) and not scored["success"]


@pytest.mark.django_db
def test_plan_stored_bundled_scenarios_without_data():
    from games.importers.bundled_recipes import load

    load(log=lambda line: None)
    result = run("plan", "recipes", "--instance", "bundled/Roast-Vegetables_Garlic-Bread", "--planner", "optimal")
    assert result["optimal"] and result["replay_feasible"]
