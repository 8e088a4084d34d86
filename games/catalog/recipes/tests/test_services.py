import pytest

from games.catalog.recipes.services import (
    RecipeProblem,
    build_scenario,
    rebuild_scenarios,
    recipe_definition,
    save_recipe_version,
)
from games.domains.recipes.rules import RULES
from games.models import Scenario

pytestmark = pytest.mark.django_db

TOAST = [
    {"text": "Slice the bread.", "duration_seconds": 60, "interruptible": True},
    {
        "text": "Toast it.",
        "duration_seconds": 180,
        "autonomous": True,
        "prerequisites": [0],
        "physical": {"stove": {"require": {}, "update": {}}},
    },
    {"text": "Butter it.", "duration_seconds": 30, "prerequisites": [1], "time_constraints": {"1": 0.5}},
]
TEA = [{"text": "Boil the kettle.", "duration_seconds": 120, "autonomous": True}]


def test_recipe_definition_is_what_the_rules_read():
    toast = save_recipe_version("Toast", TOAST, "bundled")
    definition = recipe_definition(toast)
    assert definition["steps"][2]["time_constraints"] == {"1": 30}  # minutes in the model, seconds here
    assert definition["steps"][1]["autonomous"] and definition["steps"][0]["interruptible"]
    RULES.initial_state({"recipes": [definition]})


def test_a_new_version_only_when_something_changed():
    first = save_recipe_version("Toast", TOAST, "bundled")
    assert save_recipe_version("Toast", TOAST, "gold:demo").pk == first.pk
    changed = [dict(TOAST[0], interruptible=False), *TOAST[1:]]
    second = save_recipe_version("Toast", changed, "gold:demo")
    assert (second.version, second.is_current, second.source) == (2, True, "gold:demo")
    first.refresh_from_db()
    assert not first.is_current and first.steps.count() == 3


def test_bad_steps_are_refused_with_the_field_named():
    with pytest.raises(RecipeProblem, match="Toast step 1: give 'duration_seconds'"):
        save_recipe_version("Toast", [TOAST[0], {"text": "Toast it."}], "gold:demo")
    with pytest.raises(RecipeProblem, match="prerequisite 5"):
        save_recipe_version("Toast", [dict(TOAST[0], prerequisites=[5])], "gold:demo")


def test_rebuilding_makes_gold_labels_playable_and_keeps_old_versions():
    save_recipe_version("Toast", TOAST, "bundled")
    save_recipe_version("Tea", TEA, "bundled")
    old, _ = build_scenario("bundled/Toast_Tea", ["Toast", "Tea"], title="Toast and tea", source="bundled")
    save_recipe_version("Toast", [dict(TOAST[0], interruptible=False), *TOAST[1:]], "gold:demo")
    changed = rebuild_scenarios("Toast")
    assert [s.slug for s in changed] == ["bundled/Toast_Tea"]
    new = changed[0]
    assert new.version == old.version + 1 and new.definition["recipe_versions"] == {"Toast": 2, "Tea": 1}
    assert new.definition["recipes"][0]["steps"][0]["interruptible"] is False
    old.refresh_from_db()
    assert not old.is_current and old.definition["recipes"][0]["steps"][0]["interruptible"] is True
    assert rebuild_scenarios("Toast") == []
    assert Scenario.objects.filter(slug="bundled/Toast_Tea").count() == 2


def test_reimporting_keeps_an_annotated_version_current():
    from games.catalog.recipes.services import import_recipe

    _, status = import_recipe("Toast", TOAST, "bundled")
    assert status == "created"
    gold = save_recipe_version("Toast", [dict(TOAST[0], interruptible=False), *TOAST[1:]], "gold:demo")
    current, status = import_recipe("Toast", TOAST, "bundled")
    assert status == "kept" and current.pk == gold.pk
    changed_source = [dict(TOAST[0], duration_seconds=90), *TOAST[1:]]
    current, status = import_recipe("Toast", changed_source, "bundled")
    assert status == "updated" and current.version == 3 and current.source == "bundled"


def test_rebuilding_leaves_scenarios_not_built_from_the_catalogue_alone():
    """A studio scenario whose recipe shares a catalogue recipe's name (an edited copy of a bundled
    pair) was rebuilt from the catalogue when gold labels changed that recipe: the researcher's
    edits were replaced, and a pair whose other recipe is not in the catalogue failed to apply."""
    from games.scenarios import save_scenario

    save_recipe_version("Toast", TOAST, "bundled")
    save_recipe_version("Tea", TEA, "bundled")
    build_scenario("bundled/Toast_Tea", ["Toast", "Tea"], title="Toast and tea", source="bundled")
    toast = recipe_definition(save_recipe_version("Toast", TOAST, "bundled"))
    edited = {**toast, "steps": [dict(toast["steps"][0], duration=600), *toast["steps"][1:]]}
    mine = {
        "recipes": [edited, {"name": "Jam", "steps": [{"step": 0, "description": "Open the jar.", "duration": 10}]}]
    }
    studio, _ = save_scenario(domain="recipes", slug="studio/my-toast", title="Mine", source="studio", definition=mine)
    save_recipe_version("Toast", [dict(TOAST[0], interruptible=False), *TOAST[1:]], "gold:demo")
    assert [s.slug for s in rebuild_scenarios("Toast")] == ["bundled/Toast_Tea"]
    current = Scenario.objects.get(slug="studio/my-toast", is_current=True)
    assert current.pk == studio.pk and current.definition == studio.definition
