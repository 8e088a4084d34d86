import json

import pytest
from django.core.management import CommandError, call_command

from games.catalog.recipes.models import Recipe
from games.domains.recipes.rules import RULES
from games.engine.conformance import check_rules
from games.importers.bundled_recipes import load
from games.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.mark.datasets
def test_import_recipe2plan_is_complete_and_idempotent(datasets_dir, capsys):
    path = datasets_dir / "recipe2plan" / "cooking.json"
    call_command("import_dataset", "recipe2plan", str(path))
    assert "65 created" in capsys.readouterr().out
    assert Scenario.objects.filter(domain="recipes", slug__startswith="recipe2plan/").count() == 65
    assert Recipe.objects.filter(source="recipe2plan").count() == 24
    scenario = Scenario.objects.get(slug="recipe2plan/Cobbler_Pancakes")
    cobbler = scenario.definition["recipes"][0]
    assert cobbler["name"] == "Cobbler" and cobbler["steps"][3]["time_constraints"] == {"2": 120}
    assert cobbler["steps"][0]["physical"]["oven"]["update"] == {"temperature": 350.0}
    volcano = Recipe.objects.get(name="Volcano-Glass", is_current=True)
    assert volcano.steps.get(index=3).duration_seconds == 3600  # "1 hour"
    check_rules(RULES, scenario.definition)

    call_command("import_dataset", "recipe2plan", str(path))
    assert "0 created, 0 updated, 65 unchanged" in capsys.readouterr().out
    assert Scenario.objects.filter(domain="recipes").count() == 65
    assert Recipe.objects.count() == 24


def test_a_broken_file_imports_nothing(tmp_path):
    good = [
        {
            "recipe": "Toast",
            "steps": [
                {
                    "step": 0,
                    "text": "Toast",
                    "time": "2 min",
                    "prequisites": [],
                    "time_constraint": {},
                    "interrupt": 0,
                    "parallel": 1,
                    "physical": {},
                }
            ],
        }
    ]
    bad = [
        {
            "recipe": "Tea",
            "steps": [
                {
                    "step": 0,
                    "text": "Brew",
                    "time": "three min",
                    "prequisites": [],
                    "time_constraint": {},
                    "interrupt": 0,
                    "parallel": 1,
                    "physical": {},
                }
            ],
        }
    ]
    path = tmp_path / "cooking.json"
    path.write_text(json.dumps([good, bad]))
    with pytest.raises(CommandError, match=r"nothing imported: .*instance 1.*Tea.*'three min' is not a duration"):
        call_command("import_dataset", "recipe2plan", str(path))
    assert not Recipe.objects.exists() and not Scenario.objects.exists()
    path.write_text("{not json")
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("import_dataset", "recipe2plan", str(path))


def test_bundled_content_loads_and_plays():
    assert load(log=lambda line: None) >= 6
    scenarios = Scenario.objects.filter(domain="recipes", slug__startswith="bundled/")
    assert scenarios.count() >= 6
    assert Recipe.objects.filter(source="bundled").count() >= 6
    for scenario in scenarios:
        check_rules(RULES, scenario.definition)
    assert load(log=lambda line: None) == 0
