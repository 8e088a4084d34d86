"""A small demo annotation project on the bundled recipes (``seed_demo`` calls ``load_demo``).

The demo ``annotator`` account gets an open queue; two simulated annotators (accounts that cannot
sign in) have submitted their labels, so the agreement report and adjudication have something to
show at once. Their labels are the recipe's own properties with a fixed share changed, per
property, roughly like the disagreement the Recipe2Plan paper reports.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.roles import Role, grant
from annotations import services
from annotations.exports import recipe_record
from annotations.models import Assignment, Label, Project
from annotations.schema import DEFAULT_PROPERTIES, RESOURCE, TIME_CONSTRAINT, labels_of_step
from games.catalog.recipes.models import Recipe

PROJECT_NAME = "Demo: bundled recipes"
DEMO_RECIPES = ["Lemonade", "Omelette", "Tomato-Soup", "Garlic-Bread"]
SIMULATED = ["demo-annotator-b", "demo-annotator-c"]
# Share of labels a simulated annotator changes, per property.
NOISE = {"concurrency": 0.07, "interruptibility": 0.18, "resource": 0.04, "time_constraint": 0.1}
ALTERNATIVES = {
    "concurrency": ["autonomous", "continuous"],
    "interruptibility": ["interruptible", "not_interruptible"],
    "resource": ["none", "oven", "stove", "microwave"],
}


def _draw(*parts: str) -> float:
    """A fixed pseudo-random number in [0, 1) per (annotator, item, property): the demo is reproducible."""
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _simulated_label(annotator: str, key: str, prop: str, truth: str, step: int) -> str:
    if _draw(annotator, key, prop) >= NOISE.get(prop, 0):
        return truth
    if prop == TIME_CONSTRAINT:
        return "none" if truth != "none" else f"{max(step - 1, 0)}:5" if step > 0 else "none"
    options = [v for v in ALTERNATIVES.get(prop, [truth]) if v != truth] or [truth]
    return options[int(_draw(annotator, key, prop, "alt") * len(options))]


def load_demo(log: Callable[[str], None] = print) -> None:
    if Project.objects.filter(name=PROJECT_NAME).exists():
        log(f"annotations: demo project {PROJECT_NAME!r} exists")
        return
    recipes = list(Recipe.objects.filter(name__in=DEMO_RECIPES, is_current=True))
    if not recipes:
        log("annotations: no bundled recipes yet; demo project skipped")
        return
    users = get_user_model()
    annotator = users.objects.filter(username="annotator").first()
    with transaction.atomic():
        people = [annotator] if annotator is not None else []
        for name in SIMULATED:
            user, created = users.objects.get_or_create(username=name)
            if created:
                user.set_unusable_password()
                user.save()
            grant(user, Role.ANNOTATOR)
            people.append(user)
        project = services.create_project(
            name=PROJECT_NAME,
            description="Label the bundled recipes' steps; two simulated colleagues have submitted theirs.",
            recipes=sorted(recipes, key=lambda r: DEMO_RECIPES.index(r.name)),
            properties=list(DEFAULT_PROPERTIES),
            annotators=people,
            annotators_per_item=len(people),
        )
        items = {item.key: item for item in project.items.all()}
        labels = []
        for name in SIMULATED:
            identity = services.annotator_for_user(users.objects.get(username=name))
            for recipe in recipes:
                for step in recipe_record(recipe)["steps"]:
                    key = f"{recipe.name}/{step['step']}"
                    truth = labels_of_step(step)
                    for prop in DEFAULT_PROPERTIES:
                        value = _simulated_label(name, key, prop, truth[prop], step["step"])
                        if prop == RESOURCE and value != "none" and "+" in value:
                            value = "+".join(sorted(value.split("+")))
                        labels.append(Label(item=items[key], annotator=identity, property=prop, value=value))
            Assignment.objects.filter(recipe__project=project, annotator=identity).update(submitted_at=timezone.now())
        Label.objects.bulk_create(labels)
    log(f"annotations: demo project {PROJECT_NAME!r} with {len(items)} steps; 2 simulated annotators submitted")
