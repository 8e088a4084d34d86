"""Small builders for annotation tests: recipes made with the catalogue models directly."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from accounts.roles import Role, grant
from games.catalog.recipes.models import Recipe, RecipeStep

COBBLER = [
    # text, seconds, prerequisites, constraints {k: minutes}, interruptible, autonomous, physical
    (
        "Preheat the oven to 350 degrees.",
        600,
        [],
        {},
        False,
        True,
        {"oven": {"require": {}, "update": {"temperature": 350}}},
    ),
    ("Melt the butter in the microwave.", 60, [], {}, False, True, {"microwave": {"require": {}}}),
    ("Pour the butter in the pan.", 60, [1], {"1": 2}, False, False, {}),
    ("Mix the Bisquick, sugar and milk.", 180, [], {}, True, False, {}),
    ("Bake in the oven.", 2400, [0, 2, 3], {}, False, True, {"oven": {"require": {"temperature": 350}}}),
]


def make_recipe(name: str = "Cobbler", steps: list[tuple[Any, ...]] | None = None, version: int = 1) -> Recipe:
    recipe = Recipe.objects.create(name=name, version=version, source="test")
    for index, (text, seconds, prereq, constraints, interruptible, autonomous, physical) in enumerate(steps or COBBLER):
        RecipeStep.objects.create(
            recipe=recipe,
            index=index,
            text=text,
            duration_seconds=seconds,
            prerequisites=prereq,
            time_constraints=constraints,
            interruptible=interruptible,
            autonomous=autonomous,
            physical=physical,
        )
    return recipe


def make_annotator(username: str, password: str = "pw-annotator-1") -> Any:
    user = get_user_model().objects.create_user(username, password=password)
    grant(user, Role.ANNOTATOR)
    return user


def tied_project() -> Any:
    """A project "Ties" of Cobbler whose two annotators, amy and bob, submitted: the same labels
    everywhere but step 4's concurrency, continuous against autonomous (a 1-vs-1 tie)."""
    from annotations import services

    people = [make_annotator(name) for name in ("amy", "bob")]
    project = services.create_project(
        name="Ties",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency", "resource"],
        annotators=people,
        annotators_per_item=2,
    )
    unit = project.recipes.get()
    for user in people:
        for item in unit.items.all():
            services.save_label(user=user, item=item, prop="resource", value="none")
            tied = item.step == 4 and user.username == "bob"
            services.save_label(user=user, item=item, prop="concurrency", value="autonomous" if tied else "continuous")
        services.submit(user=user, unit=unit)
    return project
