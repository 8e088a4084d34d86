import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.bundled import CONTENT_DIR
from games.domains.tasks.content import read_task
from games.domains.tasks.oracle import check_schedule


def plan(*args: str) -> object:
    out = StringIO()
    call_command("plan", "tasks", *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_plan_from_a_folder_of_our_task_files_prints_one_object():
    result = plan("--data", str(CONTENT_DIR / "tasks"), "--tasks", "make-tea,wash-clothes", "--planner", "optimal")
    assert isinstance(result, dict)
    assert {"makespan", "optimal", "feasible", "schedule", "solve_seconds"} <= set(result)
    assert result["optimal"] and result["feasible"]
    assert set(result["schedule"][0]) == {"agent", "action", "start", "end"}
    assert result["makespan"] == max(entry["end"] for entry in result["schedule"])
    definitions = [
        read_task(n, (CONTENT_DIR / "tasks" / f"{n}.toml").read_text()) for n in ("make-tea", "wash-clothes")
    ]
    from games.domains.tasks.definition import compose

    replayed = check_schedule(compose(definitions), [(e["agent"], e["action"], e["start"]) for e in result["schedule"]])
    assert replayed.feasible and replayed.makespan == result["makespan"]


def test_repeated_tasks_give_a_list_in_the_same_order():
    results = plan(
        "--data",
        str(CONTENT_DIR / "tasks"),
        "--tasks",
        "make-tea",
        "--tasks",
        "iron-shirt,run-pcr",
        "--planner",
        "greedy",
        "--agents",
        "2",
        "--constrained",
    )
    assert [r["tasks"] for r in results] == [["make-tea"], ["iron-shirt", "run-pcr"]]
    assert all(r["planner"] == "greedy" and r["constrained"] and r["agents"] == 2 for r in results)
    assert all(r["optimal"] is False for r in results)


@pytest.mark.django_db
def test_without_data_the_stored_scenarios_are_read_by_name():
    from games.importers.bundled_tasks import load

    load(log=lambda line: None)
    result = plan("--tasks", "make-tea,bundled/bake-bread", "--agents", "2")
    assert result["tasks"] == ["make-tea", "bake-bread"] and result["feasible"]


@pytest.mark.django_db
def test_unknown_tasks_and_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(CommandError, match=r"no stored task 'cooking1'.*import_dataset timearena"):
        plan("--tasks", "cooking1")
    with pytest.raises(CommandError, match=r"no task 'tea' in .*it has: "):
        plan("--data", str(CONTENT_DIR / "tasks"), "--tasks", "tea")
    with pytest.raises(CommandError, match="--agents must be at least 1"):
        plan("--data", str(CONTENT_DIR / "tasks"), "--tasks", "make-tea", "--agents", "0")
    broken = tmp_path / "dependencygraph.json"
    broken.write_text('{"cooking1": [{"wash dish": 3}, {"wash dish": ["pick dish"]}]}')
    with pytest.raises(CommandError, match="prerequisite 'pick dish'"):
        plan("--data", str(broken), "--tasks", "cooking1")


@pytest.mark.datasets
def test_plan_on_the_published_file_reports_the_greedy_plan_infeasible_where_it_is(datasets_dir):
    path = datasets_dir / "timearena" / "dependencygraph.json"
    greedy, optimal = (
        plan("--data", str(path), "--tasks", "household4", "--planner", "greedy"),
        plan("--data", str(path), "--tasks", "household4"),
    )
    assert greedy["makespan"] == 9 and greedy["feasible"] is False
    assert optimal["optimal"] and optimal["feasible"] and optimal["greedy"]["feasible"] is False


def test_describe_shows_the_renamed_objects_and_shared_appliances():
    out = StringIO()
    call_command(
        "describe",
        "tasks",
        "--data",
        str(CONTENT_DIR / "tasks"),
        "--tasks",
        "cook-pasta,make-breakfast",
        "--json",
        stdout=out,
        stderr=StringIO(),
    )
    described = json.loads(out.getvalue())
    objects = {o["name"]: o for o in described["objects"]}
    assert objects["plate_1"]["task"] == 0 and objects["plate_2"]["task"] == 1
    assert objects["pan"]["appliance"] and objects["pan"]["capacity"] == 2
    assert {
        "action": "add egg to plate_2",
        "task": 1,
        "minutes": 1,
        "background": False,
        "requires": ["fry egg in pan", "wash plate_2"],
    } in described["actions"]
    assert described["time_limit"] == 80
