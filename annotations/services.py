"""Every change to annotation data, one function each, called by views, commands and tasks alike.

Functions raise ``AnnotationError`` with a message that says what to do; they change nothing
when they raise (each runs in one transaction).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotations.models import Annotator, Assignment, GoldLabel, Item, Label, Project, ProjectRecipe
from annotations.schema import DEFAULT_GUIDELINES, PROPERTIES, PROPERTY_TITLES, LabelError, check_label
from games.catalog.recipes.models import Recipe


class AnnotationError(ValueError):
    """A request the annotation workflow refuses; the message says what to do instead."""


def annotator_for_user(user: Any) -> Annotator:
    """The user's annotator identity (an imported annotator of the same name is claimed once)."""
    existing = Annotator.objects.filter(user=user).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        annotator, _ = Annotator.objects.select_for_update().get_or_create(name=user.get_username())
        if annotator.user_id is None and not annotator.is_model:
            annotator.user = user
            annotator.save(update_fields=["user"])
        elif annotator.user_id != user.pk:
            raise AnnotationError(f"the annotator name {annotator.name!r} belongs to someone else; ask a researcher")
    return annotator


def _check_properties(properties: Sequence[str]) -> list[str]:
    chosen = [p for p in PROPERTIES if p in set(properties)]
    unknown = sorted(set(properties) - set(PROPERTIES))
    if unknown:
        raise AnnotationError(f"unknown property {unknown[0]!r}; choose from {', '.join(PROPERTIES)}")
    if not chosen:
        raise AnnotationError("choose at least one property to label")
    return chosen


def add_recipe(project: Project, recipe: Recipe, position: int) -> ProjectRecipe:
    unit = ProjectRecipe.objects.create(project=project, name=recipe.name, recipe=recipe, position=position)
    Item.objects.bulk_create(
        Item(
            project=project,
            recipe=unit,
            step=step.index,
            key=f"{recipe.name}/{step.index}",
            text=step.text,
            duration_seconds=step.duration_seconds,
        )
        for step in recipe.steps.order_by("index")
    )
    return unit


@transaction.atomic
def create_project(
    *,
    name: str,
    recipes: Sequence[Recipe],
    properties: Sequence[str],
    annotators: Sequence[Any],
    annotators_per_item: int = 3,
    guidelines: str = "",
    description: str = "",
    show_suggestions: bool = False,
    created_by: Any = None,
) -> Project:
    """A project over ``recipes``; each recipe goes to ``annotators_per_item`` of ``annotators`` (users)."""
    name = name.strip()
    if not name:
        raise AnnotationError("give the project a name")
    if Project.objects.filter(name=name).exists():
        raise AnnotationError(f"a project named {name!r} exists already; choose another name")
    if not recipes:
        raise AnnotationError("choose at least one recipe to label")
    if len({r.name for r in recipes}) != len(recipes):
        raise AnnotationError("choose each recipe once (one version per recipe name)")
    chosen = _check_properties(properties)
    people = list(dict.fromkeys(annotators))
    if annotators_per_item < 1:
        raise AnnotationError("annotators per item must be at least 1")
    if len(people) < annotators_per_item:
        raise AnnotationError(
            f"{annotators_per_item} annotators per item needs at least {annotators_per_item} annotators; "
            f"{len(people)} chosen: add annotators or lower the number per item"
        )
    project = Project.objects.create(
        name=name,
        description=description,
        guidelines=guidelines.strip() or DEFAULT_GUIDELINES,
        properties=chosen,
        annotators_per_item=annotators_per_item,
        show_suggestions=show_suggestions,
        created_by=created_by,
    )
    units = [add_recipe(project, recipe, i) for i, recipe in enumerate(recipes)]
    identities = [annotator_for_user(user) for user in people]
    # Rotate through the annotators so every recipe gets k different people and work is balanced.
    Assignment.objects.bulk_create(
        Assignment(recipe=unit, annotator=identities[(i * annotators_per_item + j) % len(identities)])
        for i, unit in enumerate(units)
        for j in range(annotators_per_item)
    )
    return project


def _assignment_for(annotator: Annotator, unit: ProjectRecipe, *, lock: bool) -> Assignment:
    query = Assignment.objects.filter(recipe=unit, annotator=annotator)
    assignment = (query.select_for_update() if lock else query).first()
    if assignment is None:
        raise AnnotationError(f"{unit.name} is not in your queue; open a recipe from your queue")
    return assignment


def recipe_steps(unit: ProjectRecipe) -> list[int]:
    return list(unit.items.values_list("step", flat=True))


@transaction.atomic
def save_label(*, user: Any, item: Item, prop: str, value: str) -> Label | None:
    """Save (or, with an empty value, clear) one label of the user's; other annotators' rows are untouched."""
    annotator = annotator_for_user(user)
    # Locking the assignment row orders this save against a concurrent submit of the same recipe.
    assignment = _assignment_for(annotator, item.recipe, lock=True)
    if assignment.submitted_at is not None:
        raise AnnotationError(f"you submitted {item.recipe.name} already; its labels are final")
    if prop not in item.project.properties:
        raise AnnotationError(f"this project does not label {prop!r}")
    if not value.strip():
        Label.objects.filter(item=item, annotator=annotator, property=prop).delete()
        return None
    try:
        value = check_label(prop, value, step=item.step, steps=recipe_steps(item.recipe), earlier_only=True)
    except LabelError as exc:
        raise AnnotationError(str(exc)) from None
    # One INSERT .. ON CONFLICT DO UPDATE: concurrent saves of the same row cannot fail or duplicate.
    Label.objects.bulk_create(
        [Label(item=item, annotator=annotator, property=prop, value=value, updated_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["item", "annotator", "property"],
        update_fields=["value", "updated_at"],
    )
    return Label.objects.get(item=item, annotator=annotator, property=prop)


def missing_labels(unit: ProjectRecipe, annotator: Annotator) -> list[tuple[int, str]]:
    have = set(Label.objects.filter(item__recipe=unit, annotator=annotator).values_list("item__step", "property"))
    return [(step, prop) for step in recipe_steps(unit) for prop in unit.project.properties if (step, prop) not in have]


@transaction.atomic
def submit(*, user: Any, unit: ProjectRecipe) -> Assignment:
    """Submit the user's labels of one recipe (every step, every property); they become final."""
    annotator = annotator_for_user(user)
    assignment = _assignment_for(annotator, unit, lock=True)
    if assignment.submitted_at is not None:
        return assignment
    missing = missing_labels(unit, annotator)
    if missing:
        shown = "; ".join(f"step {step}: {PROPERTY_TITLES.get(prop, prop).lower()}" for step, prop in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise AnnotationError(f"label every step before submitting; missing {shown}{more}")
    assignment.submitted_at = timezone.now()
    assignment.save(update_fields=["submitted_at"])
    return assignment


@transaction.atomic
def set_gold(*, user: Any, item: Item, prop: str, value: str) -> GoldLabel:
    if prop not in item.project.properties:
        raise AnnotationError(f"this project does not label {prop!r}")
    try:
        value = check_label(prop, value, step=item.step, steps=recipe_steps(item.recipe), earlier_only=True)
    except LabelError as exc:
        raise AnnotationError(str(exc)) from None
    gold, _ = GoldLabel.objects.update_or_create(
        item=item, property=prop, defaults={"value": value, "decided_by": user}
    )
    return gold


def model_annotator(model_name: str) -> Annotator:
    annotator, _ = Annotator.objects.get_or_create(name=f"model:{model_name}", defaults={"is_model": True})
    if not annotator.is_model:
        raise AnnotationError(f"the annotator name model:{model_name} is taken by a person")
    return annotator


def store_model_labels(annotator: Annotator, item_labels: Iterable[tuple[Item, str, str]]) -> int:
    """Write a model's (already validated) labels, replacing its earlier ones for the same items."""
    rows = [Label(item=item, annotator=annotator, property=prop, value=value) for item, prop, value in item_labels]
    Label.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["item", "annotator", "property"], update_fields=["value"]
    )
    return len(rows)


def user_named(username: str) -> Any | None:
    return get_user_model().objects.filter(username=username).first()


def set_show_suggestions(project: Project, show: bool) -> None:
    """Whether the project's annotators see the model's labels as suggestions."""
    project.show_suggestions = bool(show)
    project.save(update_fields=["show_suggestions"])
