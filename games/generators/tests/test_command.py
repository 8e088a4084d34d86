"""``manage.py generate``: the JSON it prints, its errors, and saving a family as scenarios."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import Scenario

KEYS = {"slug", "definition", "optimal_makespan", "optimal", "lower_bound", "greedy_makespan", "solve_seconds", "stats"}


def _run(*args: str) -> list[dict]:
    out = StringIO()
    call_command("generate", *args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_generate_prints_one_object_per_instance_with_its_certificate():
    instances = _run("tasks", "--count", "2", "--seed", "4", "--actions", "8", "--constrained", "--json")
    assert len(instances) == 2
    for instance in instances:
        assert set(instance) >= KEYS
        assert instance["knobs"]["constrained"] is True and instance["knobs"]["actions"] == 8
        assert instance["stats"]["actions"] == 8
        assert instance["stats"]["parallelism"] == round(
            instance["stats"]["total_minutes"] / instance["optimal_makespan"], 4
        )
    recipes = _run("recipes", "--count", "1", "--steps", "4", "--json")
    assert recipes[0]["stats"]["actions"] == 8 and recipes[0]["optimal"]


def test_bad_knobs_are_one_clear_error():
    with pytest.raises(CommandError, match="depth: must be from 1 to 10"):
        _run("tasks", "--depth", "40")
    # a 300-digit seed made a family's slugs longer than a scenario's slug may be
    with pytest.raises(CommandError, match="seed: must be a whole number from 0 to 2147483647"):
        _run("tasks", "--seed", "9" * 300)
    with pytest.raises(CommandError, match="seed: must be a whole number from 0 to"):
        _run("tasks", "--seed", "-1")


@pytest.mark.django_db
def test_save_stores_the_family_as_current_scenarios_and_is_idempotent():
    instances = _run("tasks", "--count", "2", "--seed", "9", "--actions", "6", "--save", "--json")
    stored = Scenario.objects.current().filter(source="generated").order_by("slug")
    assert [s.slug for s in stored] == [i["slug"] for i in instances]
    assert stored[0].definition == instances[0]["definition"]
    assert f"Optimum {instances[0]['optimal_makespan']} for 1 agent (proven optimal)" in stored[0].description
    _run("tasks", "--count", "2", "--seed", "9", "--actions", "6", "--save")
    assert Scenario.objects.filter(source="generated").count() == 2


@pytest.mark.django_db
def test_a_saved_recipe_pair_is_titled_by_its_recipes():
    # a recipe pair's definition has no title: the game list read "generated/recipes-s0-...-001"
    (instance,) = _run("recipes", "--count", "1", "--steps", "4", "--save", "--json")
    names = [recipe["name"] for recipe in instance["definition"]["recipes"]]
    stored = Scenario.objects.current().get(slug=instance["slug"])
    words = " + ".join(name.replace("-", " ") for name in names)
    assert stored.title == f"Generated: {words} ({4 * len(names)} steps)"


@pytest.mark.parametrize(
    ("domain", "knobs"),
    [
        ("tasks", ["--actions", "6"]),
        ("recipes", ["--steps", "4"]),
        ("kitchen", ["--dishes", "1", "--depth", "1"]),
        ("itinerary", ["--cities", "1"]),
    ],
)
def test_every_domain_prints_the_certificate_fields(domain, knobs):
    (instance,) = _run(domain, "--count", "1", "--seed", "2", *knobs, "--json")
    assert set(instance) >= KEYS
    assert {"actions", "parallelism"} <= set(instance["stats"])
    assert isinstance(instance["optimal"], bool) and instance["slug"].startswith(f"generated/{domain}-s2-")
    if instance["optimal"]:
        assert instance["lower_bound"] == instance["optimal_makespan"]
