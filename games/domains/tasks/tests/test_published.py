"""The rules on TimeArena's published tasks (reads ../shared/datasets)."""

import json

import pytest

from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.rules import RULES
from games.domains.tasks.timearena import CORRECTIONS, combinations, read
from games.engine.conformance import check_rules

pytestmark = pytest.mark.datasets


@pytest.fixture(scope="module")
def published(datasets_dir):
    return read(json.loads((datasets_dir / "timearena" / "dependencygraph.json").read_text()))


def test_every_published_task_passes_the_conformance_suite(published):
    definitions, _ = published
    assert len(definitions) == 30
    for definition in definitions.values():
        check_rules(RULES, definition)
    check_rules(RULES, compose([definitions["cooking9"], definitions["cooking10"], definitions["cooking1"]]), agents=2)
    check_rules(RULES, compose([definitions["lab1"], definitions["lab2"]]), options={"constrained": True})


def test_appliance_counts_follow_the_published_environment(published):
    definitions, notes = published
    fryers = {
        n: compile_definition(definitions[n]).object_index["fryer"].capacity
        for n in ("cooking2", "cooking5", "cooking7")
    }
    assert fryers == {"cooking2": 2, "cooking5": 2, "cooking7": 2}
    assert compile_definition(definitions["cooking9"]).object_index["pot"].capacity == 2
    assert len(notes) == len(CORRECTIONS)


def test_combined_cooking_tasks_keep_ingredients_in_their_own_dish(published):
    definitions, _ = published
    for combo in combinations(list(definitions)):
        if not combo[0].startswith("cooking") or len(combo) == 1:
            continue
        scenario = compile_definition(compose([definitions[n] for n in combo]), constrained=True)
        for action in scenario.actions:
            if action.verb == "add":
                target = scenario.object_index[action.objects[1]]
                assert target.task == action.task, f"{combo}: {action.text} goes into another task's dish"
