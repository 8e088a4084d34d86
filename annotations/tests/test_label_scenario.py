"""From a recipe pair's page to an annotation project on its recipes ("Label its steps"): recipes
written in the studio join the catalogue, catalogue ones are reused, and a name clash is refused
with nothing added."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotations.models import Project
from games.catalog.recipes.models import Recipe
from games.catalog.recipes.services import build_scenario, save_recipe_version
from games.models import Scenario

pytestmark = pytest.mark.django_db

JAM = {
    "name": "Jam",
    "steps": [
        {"text": "Boil the fruit.", "time": "20 min", "autonomous": True},
        {"text": "Jar it.", "time": "5 min", "prerequisites": [0]},
    ],
}
SCONES = {
    "name": "Scones",
    "steps": [
        {"text": "Rub in the butter.", "time": "8 min", "interruptible": True},
        {"text": "Bake.", "time": "15 min", "autonomous": True, "prerequisites": [0], "physical": {"oven": {}}},
    ],
}


def _studio_pair(client, name, recipes):
    client.post("/studio/recipes/save/", {"name": name, "text": json.dumps(recipes)})
    return Scenario.objects.get(slug=f"studio/{name}", is_current=True)


def test_a_studio_pair_joins_the_catalogue_and_a_project_labels_its_steps(client, researcher, annotator):
    client.force_login(researcher)
    scenario = _studio_pair(client, "cream-tea", [JAM, SCONES])
    detail = client.get(reverse("games:scenario", args=[scenario.pk])).content.decode()
    assert "Label its steps" in detail
    response = client.post(reverse("annotations:label_scenario", args=[scenario.pk]), follow=True)
    page = response.content.decode()
    jam, scones = Recipe.objects.get(name="Jam"), Recipe.objects.get(name="Scones")
    assert jam.source == scones.source == "studio:studio/cream-tea" and jam.steps.count() == 2
    assert "Chosen for labelling: Jam, Scones" in page and 'value="Labels: ' in page
    for recipe in (jam, scones):  # ticked on the form
        assert f'name="recipes" value="{recipe.pk}" id="id_recipes_{recipe.pk - jam.pk}" checked>' in page
    form = response.context["form"]
    assert [int(pk) for pk in form.initial["recipes"]] == [jam.pk, scones.pk]
    created = client.post(
        reverse("annotations:project_new"),
        {
            "name": form.initial["name"],
            "recipes": [jam.pk, scones.pk],
            "properties": ["concurrency", "interruptibility"],
            "annotators_per_item": 1,
            "annotators": [annotator.pk],
            "guidelines": "Label the steps.",
        },
    )
    assert created.status_code == 302
    project = Project.objects.get(name="Labels: cream-tea")
    assert sorted(item.text for item in project.items.all()) == [
        "Bake.",
        "Boil the fruit.",
        "Jar it.",
        "Rub in the butter.",
    ]
    # again: the same recipes are reused, not added twice
    client.post(reverse("annotations:label_scenario", args=[scenario.pk]))
    assert Recipe.objects.filter(name__in=["Jam", "Scones"]).count() == 2


def test_a_catalogue_pair_reuses_its_recipes(client, researcher):
    from games.catalog.recipes.services import steps_from_definition

    client.force_login(researcher)
    scenario = _studio_pair(client, "jam-alone", [JAM, SCONES])
    for recipe in scenario.definition["recipes"]:
        save_recipe_version(recipe["name"], steps_from_definition(recipe), "bundled")
    built, _ = build_scenario("bundled/Jam_Scones", ["Jam", "Scones"], title="Jam and scones", source="bundled")
    before = Recipe.objects.count()
    client.post(reverse("annotations:label_scenario", args=[built.pk]))
    assert Recipe.objects.count() == before and not Recipe.objects.filter(source__startswith="studio:").exists()


def test_a_recipe_named_like_another_in_the_catalogue_is_refused_and_nothing_is_added(client, researcher):
    client.force_login(researcher)
    save_recipe_version("Jam", [{"text": "Another jam.", "duration_seconds": 60}], "bundled")
    scenario = _studio_pair(client, "my-jam", [SCONES, JAM])
    page = client.post(reverse("annotations:label_scenario", args=[scenario.pk]), follow=True).content.decode()
    assert "The catalogue has another recipe called “Jam” (from bundled, v1) with other steps" in page
    assert "give yours another name in the studio" in page
    assert not Recipe.objects.filter(name="Scones").exists()  # the pair's other recipe was not added either


def test_only_recipe_scenarios_and_only_researchers(client, researcher, annotator):
    from games.importers import bundled_tasks

    bundled_tasks.load(log=lambda line: None)
    tea = Scenario.objects.get(slug="bundled/make-tea", is_current=True)
    client.force_login(researcher)
    assert "Label its steps" not in client.get(reverse("games:scenario", args=[tea.pk])).content.decode()
    page = client.post(reverse("annotations:label_scenario", args=[tea.pk]), follow=True).content.decode()
    assert "is not a recipes scenario" in page
    scenario = _studio_pair(client, "cream-tea", [JAM, SCONES])
    client.force_login(annotator)
    assert client.post(reverse("annotations:label_scenario", args=[scenario.pk])).status_code == 403
    assert not Recipe.objects.filter(name="Jam").exists()
