"""Projects, assignments, save-as-you-go, submission and blindness at the service level."""

from __future__ import annotations

import pytest

from annotations import selectors, services
from annotations.models import Assignment, Item, Label
from annotations.services import AnnotationError
from annotations.tests.factories import make_annotator, make_recipe

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return [make_annotator(name) for name in ("amy", "bob", "cat", "dan")]


def _project(researcher, people, per_item=3, recipes=None, properties=("concurrency", "resource")):
    recipes = recipes or [make_recipe("Cobbler"), make_recipe("Tea")]
    return services.create_project(
        name="Pilot",
        recipes=recipes,
        properties=list(properties),
        annotators=people,
        annotators_per_item=per_item,
        created_by=researcher,
    )


def test_create_project_assigns_each_recipe_to_k_different_annotators(researcher, people):
    recipes = [make_recipe(f"R{i}") for i in range(4)]
    project = _project(researcher, people, per_item=3, recipes=recipes)
    assert project.items.count() == 4 * 5
    assert project.guidelines.startswith("Label every step")
    per_recipe = {}
    for a in Assignment.objects.filter(recipe__project=project):
        per_recipe.setdefault(a.recipe.name, set()).add(a.annotator.name)
    assert all(len(names) == 3 for names in per_recipe.values())
    load = {}
    for names in per_recipe.values():
        for name in names:
            load[name] = load.get(name, 0) + 1
    assert sorted(load.values()) == [3, 3, 3, 3]  # 12 assignments over 4 people, balanced


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"per_item": 5}, "needs at least 5 annotators"),
        ({"properties": ()}, "at least one property"),
        ({"properties": ("colour",)}, "unknown property"),
    ],
)
def test_create_project_refuses_bad_settings(researcher, people, kwargs, message):
    with pytest.raises(AnnotationError, match=message):
        _project(researcher, people, **kwargs)
    assert not Item.objects.exists()


def test_save_as_you_go_and_submit(researcher, people):
    project = _project(researcher, people[:3])
    amy = people[0]
    unit = project.recipes.get(name="Cobbler")
    item = unit.items.get(step=2)
    services.save_label(user=amy, item=item, prop="concurrency", value="autonomous")
    services.save_label(user=amy, item=item, prop="concurrency", value="continuous")  # a change replaces
    annotator = services.annotator_for_user(amy)
    assert selectors.labels_of(annotator, unit) == {2: {"concurrency": "continuous"}}
    with pytest.raises(AnnotationError, match="missing step 0: concurrency"):
        services.submit(user=amy, unit=unit)
    for step_item in unit.items.all():
        services.save_label(user=amy, item=step_item, prop="concurrency", value="continuous")
        services.save_label(user=amy, item=step_item, prop="resource", value="none")
    services.submit(user=amy, unit=unit)
    assert [e.assignment.recipe.name for e in selectors.queue(annotator)] == ["Tea", "Cobbler"]  # open first
    with pytest.raises(AnnotationError, match="submitted Cobbler already"):
        services.save_label(user=amy, item=item, prop="resource", value="oven")
    assert Label.objects.get(item=item, annotator=annotator, property="resource").value == "none"


def test_bad_label_and_foreign_recipe_change_nothing(researcher, people):
    project = _project(researcher, people[:3])
    item = project.recipes.get(name="Cobbler").items.get(step=2)
    with pytest.raises(AnnotationError, match="sorted order"):
        services.save_label(user=people[0], item=item, prop="resource", value="stove+oven")
    with pytest.raises(AnnotationError, match="does not label"):
        services.save_label(user=people[0], item=item, prop="interruptibility", value="interruptible")
    with pytest.raises(AnnotationError, match="not in your queue"):
        services.save_label(user=people[3], item=item, prop="resource", value="oven")
    assert not Label.objects.exists()


def test_agreement_counts_only_submitted_labels(researcher, people):
    project = _project(researcher, people[:3], properties=("concurrency",))
    unit = project.recipes.get(name="Tea")
    for user in people[:2]:
        for item in unit.items.all():
            services.save_label(user=user, item=item, prop="concurrency", value="autonomous")
    services.submit(user=people[0], unit=unit)
    assert selectors.ratings(project)["concurrency"] == {f"Tea/{i}": {"amy": "autonomous"} for i in range(5)}
