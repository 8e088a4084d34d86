"""Gold labels: adjudication helpers and applying gold to the recipes the games play.

Applying gold makes the recipe's next version through the recipes catalogue's one service
(``save_recipe_version_changed``) and rebuilds the scenarios that use it; games already played keep
the scenario version (and so the recipe version) they were created with.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from annotations import selectors
from annotations.agreement import majority
from annotations.models import GoldApplication, GoldLabel, Item, Project
from annotations.schema import (
    CONCURRENCY,
    DEPENDENCY,
    INTERRUPTIBILITY,
    RESOURCE,
    TIME_CONSTRAINT,
    LabelError,
    check_label,
    split_constraints,
    split_resources,
    split_steps,
)
from annotations.services import AnnotationError, recipe_steps
from games.catalog.recipes.models import Recipe
from games.catalog.recipes.services import RecipeProblem, rebuild_scenarios, save_recipe_version_changed


class GoldLabelError(AnnotationError):
    """A gold label refused; ``prop`` names its property (the message names it in words already)."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(message)
        self.prop = prop


@transaction.atomic
def set_gold_labels(*, user: Any, item: Item, labels: Mapping[str, str]) -> int:
    """Store several gold labels of one item at once; any bad value stores none of them."""
    steps = recipe_steps(item.recipe)
    checked = {}
    for prop, value in labels.items():
        if prop not in item.project.properties:
            raise AnnotationError(f"this project does not label {prop!r}")
        if not value.strip():
            continue
        try:
            checked[prop] = check_label(prop, value, step=item.step, steps=steps, earlier_only=True)
        except LabelError as exc:
            raise GoldLabelError(prop, str(exc)) from None
    for prop, value in checked.items():
        GoldLabel.objects.update_or_create(item=item, property=prop, defaults={"value": value, "decided_by": user})
    return len(checked)


@transaction.atomic
def accept_unanimous(*, user: Any, project: Project, min_labels: int = 2) -> int:
    """Gold for every (item, property) without gold whose submitted labels (at least ``min_labels``) all agree."""
    ratings = selectors.ratings(project)
    existing = set(GoldLabel.objects.filter(item__project=project).values_list("item__key", "property"))
    items = {item.key: item for item in Item.objects.filter(project=project)}
    created = [
        GoldLabel(item=items[key], property=prop, value=next(iter(set(labels.values()))), decided_by=user)
        for prop, by_item in ratings.items()
        for key, labels in by_item.items()
        if (key, prop) not in existing and len(labels) >= min_labels and len(set(labels.values())) == 1
    ]
    GoldLabel.objects.bulk_create(created)
    return len(created)


def prefill(votes: Mapping[str, str], gold: str | None) -> str:
    """What the adjudication form starts with: the gold if decided, else the majority label; a tie
    at the top starts undecided (pre-filling one side, found alphabetically, beside "press Enter to
    accept" made pressing Enter through the items pick gold at random)."""
    if gold:
        return gold
    counts = sorted(Counter(votes.values()).values(), reverse=True)
    if len(counts) > 1 and counts[0] == counts[1]:
        return ""
    return majority(votes) or ""


def _fields_with_gold(step: Any, labels: Mapping[str, str]) -> dict[str, Any]:
    fields = {
        "index": step.index,
        "text": step.text,
        "duration_seconds": step.duration_seconds,
        "prerequisites": list(step.prerequisites or []),
        "time_constraints": dict(step.time_constraints or {}),
        "interruptible": step.interruptible,
        "autonomous": step.autonomous,
        "physical": dict(step.physical or {}),
    }
    if CONCURRENCY in labels:
        fields["autonomous"] = labels[CONCURRENCY] == "autonomous"
    if INTERRUPTIBILITY in labels:
        fields["interruptible"] = labels[INTERRUPTIBILITY] == "interruptible"
    if RESOURCE in labels:
        old = fields["physical"]
        fields["physical"] = {a: old.get(a, {"require": {}, "update": {}}) for a in split_resources(labels[RESOURCE])}
    if TIME_CONSTRAINT in labels:
        fields["time_constraints"] = {str(k): n for k, n in split_constraints(labels[TIME_CONSTRAINT]).items()}
    if DEPENDENCY in labels:
        fields["prerequisites"] = split_steps(labels[DEPENDENCY])
    return fields


@transaction.atomic
def apply_gold(*, user: Any, project: Project) -> list[GoldApplication]:
    """Write the gold labels over the current version of each of the project's catalogue recipes.

    A recipe whose gold changes nothing keeps its version (recorded with ``changed=False``). A
    recipe the game cannot play with these labels (say, a dependency cycle) stops the whole apply
    with the recipes service's message; nothing is changed then.
    """
    gold = selectors.gold_of(project)
    if not any(gold.values()):
        raise AnnotationError("no gold labels yet: adjudicate some items first")
    applications = []
    for unit in project.recipes.exclude(recipe=None).order_by("position"):
        current = Recipe.objects.filter(name=unit.name, is_current=True).first()
        if current is None:
            continue
        steps = []
        touched = False
        for step in current.steps.order_by("index"):
            key = f"{unit.name}/{step.index}"
            labels = {prop: values[key] for prop, values in gold.items() if key in values}
            touched |= bool(labels)
            steps.append(_fields_with_gold(step, labels))
        if not touched:
            continue
        try:
            recipe, changed = save_recipe_version_changed(unit.name, steps, source=f"gold:{project.name}"[:100])
        except RecipeProblem as exc:
            raise AnnotationError(f"{unit.name} cannot be played with these gold labels: {exc}") from None
        if changed:
            rebuild_scenarios(unit.name)
        applications.append(
            GoldApplication.objects.create(project=project, recipe=recipe, changed=changed, applied_by=user)
        )
    if not applications:
        raise AnnotationError("none of the project's recipes is in the catalogue, so there is nothing to apply gold to")
    return applications
