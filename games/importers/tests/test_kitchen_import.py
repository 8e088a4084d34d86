"""Importing CuisineWorld and loading our bundled kitchen levels."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.catalog.kitchen.models import KitchenRecipe, Level
from games.domains.kitchen.rules import RULES
from games.domains.kitchen.world import parse_recipes, tools_needed, unmakeable
from games.importers import bundled_kitchen, cuisineworld
from games.models import Scenario


@pytest.mark.datasets
def test_every_importable_cuisineworld_level_can_make_its_dishes(datasets_dir):
    folder = datasets_dir / "cuisineworld"
    converted = cuisineworld.levels(folder)
    assert len(converted) == 13
    for name, (definition, _) in converted.items():
        assert definition is not None, name
        recipes = parse_recipes(definition["recipes"])
        assert unmakeable(definition["dishes"], definition["kitchen"], recipes) == {}, name
        RULES.initial_state(definition, agents=2)  # plays


@pytest.mark.datasets
def test_level_12_is_repaired_with_a_fryer_and_says_so(datasets_dir):
    definition, repairs = cuisineworld.levels(datasets_dir / "cuisineworld")["level_12"]
    assert "fryer" in definition["kitchen"]
    assert repairs == ["frenchFries needs a fryer, which the kitchen lacked: added fryer0"]


def test_a_level_with_a_dish_without_recipe_is_refused(tmp_path):
    (tmp_path / "recipe.json").write_text(json.dumps({"toast": {"ingredients": ["bread"], "location": "pan"}}))
    (tmp_path / "tasks_level_final.json").write_text(
        json.dumps(
            {
                "good": {"kitchen": ["storage", "servingtable", "pan"], "task_list": {"toast": _task("toast")}},
                "bad": {"kitchen": ["storage", "servingtable", "pan"], "task_list": {"cake": _task("cake")}},
            }
        )
    )
    converted = cuisineworld.levels(tmp_path)
    assert converted["good"][0] is not None
    assert converted["bad"][0] is None and "cake" in converted["bad"][1][0]


def _task(dish):
    return {"ingredients": [dish], "location": "servingtable", "task_lifetime": 10}


@pytest.mark.datasets
@pytest.mark.django_db
def test_import_command_stores_levels_and_recipes_idempotently(datasets_dir, capsys):
    folder = datasets_dir / "cuisineworld"
    call_command("import_dataset", "cuisineworld", str(folder))
    out, err = capsys.readouterr()
    assert "13 created" in out and "level_12 repaired" in out
    assert "frenchFries needs a fryer" in err
    assert Scenario.objects.filter(domain="kitchen", slug__startswith="cuisineworld/").count() == 13
    assert KitchenRecipe.objects.filter(source="cuisineworld").count() == 63
    level = Level.objects.get(slug="cuisineworld/level_12")
    assert "fryer" in level.notes and level.scenario.definition["kitchen"][-1] == "fryer"
    call_command("import_dataset", "cuisineworld", str(folder))
    out, _ = capsys.readouterr()
    assert "0 created, 0 updated, 13 unchanged" in out


@pytest.mark.django_db
def test_import_command_names_a_broken_file_and_imports_nothing(tmp_path):
    (tmp_path / "recipe.json").write_text("{not json")
    with pytest.raises(CommandError, match=r"recipe\.json: not valid JSON"):
        call_command("import_dataset", "cuisineworld", str(tmp_path))
    assert not Scenario.objects.filter(domain="kitchen").exists()


def test_bundled_levels_range_from_one_tool_to_a_busy_kitchen_and_are_makeable():
    levels = bundled_kitchen.definitions()
    assert len(levels) >= 4
    tool_kinds = {name: set(d["kitchen"]) - {"storage", "servingtable"} for name, d in levels.items()}
    assert min(len(kinds) for kinds in tool_kinds.values()) == 1
    assert max(len(kinds) for kinds in tool_kinds.values()) >= 6
    for name, definition in levels.items():
        recipes = parse_recipes(definition["recipes"])
        for dish in definition["dishes"]:
            assert tools_needed(dish, recipes) <= set(definition["kitchen"]), (name, dish)


@pytest.mark.django_db
def test_bundled_loader_is_idempotent():
    assert bundled_kitchen.load(log=lambda line: None) == len(bundled_kitchen.definitions())
    assert bundled_kitchen.load(log=lambda line: None) == 0
    scenario = Scenario.objects.get(slug="bundled/busy-kitchen", is_current=True)
    assert scenario.domain == "kitchen"
    RULES.initial_state(scenario.definition, agents=4)
