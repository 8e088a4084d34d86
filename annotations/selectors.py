"""Read-only queries of annotation data, shaped for pages, reports and exports.

Blindness lives here: ``labels_of`` returns one annotator's own labels only, and the only other
labels an annotator can be shown are a model's suggestions when the project allows it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from annotations.models import Annotator, Assignment, GoldLabel, Item, Label, Project, ProjectRecipe


def final_labels(
    project: Project, *, include_models: bool = True, ordered: bool = False
) -> Iterator[tuple[str, str, str, str]]:
    """(item key, annotator, property, label) of the labels that count: those of submitted
    assignments (imported ones are submitted) and, with ``include_models``, model labels.

    Two plain queries and a set lookup rather than a correlated subquery: on a freshly imported
    project Postgres' stale statistics made the subquery plan scan every label of an annotator per
    item (minutes for 80,000 labels); this stays linear.
    """
    submitted = set(
        Assignment.objects.filter(recipe__project=project, submitted_at__isnull=False).values_list(
            "recipe_id", "annotator_id"
        )
    )
    labels = Label.objects.filter(item__project=project)
    if not include_models:
        labels = labels.filter(annotator__is_model=False)
    if ordered:
        labels = labels.order_by("item__recipe__position", "item__step", "annotator__name", "property")
    rows = labels.values_list(
        "item__recipe_id", "annotator_id", "annotator__is_model", "item__key", "annotator__name", "property", "value"
    )
    for recipe, annotator, is_model, key, name, prop, value in rows.iterator(chunk_size=5000):
        if (recipe, annotator) in submitted or (include_models and is_model):
            yield key, name, prop, value


def ratings(project: Project) -> dict[str, dict[str, dict[str, str]]]:
    """property -> item key -> annotator -> label, for the agreement report (people only, submitted)."""
    by_property: dict[str, dict[str, dict[str, str]]] = {p: {} for p in project.properties}
    for key, annotator, prop, value in final_labels(project, include_models=False):
        if prop in by_property:
            by_property[prop].setdefault(key, {})[annotator] = value
    return by_property


def gold_of(project: Project) -> dict[str, dict[str, str]]:
    """property -> item key -> gold label."""
    gold: dict[str, dict[str, str]] = defaultdict(dict)
    for key, prop, value in GoldLabel.objects.filter(item__project=project).values_list(
        "item__key", "property", "value"
    ):
        gold[prop][key] = value
    return dict(gold)


def model_labels(project: Project, annotator: Annotator) -> dict[str, dict[str, str]]:
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    rows = Label.objects.filter(item__project=project, annotator=annotator).values_list(
        "item__key", "property", "value"
    )
    for key, prop, value in rows:
        labels[prop][key] = value
    return dict(labels)


def model_annotators(project: Project) -> QuerySet[Annotator]:
    return Annotator.objects.filter(is_model=True, labels__item__project=project).distinct()


def labels_of(annotator: Annotator, unit: ProjectRecipe) -> dict[int, dict[str, str]]:
    """step -> property -> label: this annotator's own labels of one recipe, nobody else's."""
    labels: dict[int, dict[str, str]] = defaultdict(dict)
    rows = Label.objects.filter(item__recipe=unit, annotator=annotator).values_list("item__step", "property", "value")
    for step, prop, value in rows:
        labels[step][prop] = value
    return dict(labels)


def suggestions_for(unit: ProjectRecipe) -> dict[int, dict[str, str]]:
    """The latest model run's labels of this recipe, when (and only when) the project shows suggestions."""
    if not unit.project.show_suggestions:
        return {}
    run = unit.project.runs.filter(status="done").order_by("-created_at").first()
    if run is None:
        return {}
    return labels_of(run.annotator, unit)


@dataclass
class QueueEntry:
    assignment: Assignment
    labelled: int
    needed: int

    @property
    def percent(self) -> int:
        return round(100 * self.labelled / self.needed) if self.needed else 100


def queue(annotator: Annotator) -> list[QueueEntry]:
    """The annotator's assignments, open ones first, with how many of their labels are done."""
    assignments = (
        Assignment.objects.filter(annotator=annotator)
        .select_related("recipe__project")
        .annotate(steps=Count("recipe__items", distinct=True))
        # Open ones first on every database (Postgres sorts NULL last by default, SQLite first).
        .order_by(F("submitted_at").asc(nulls_first=True), "recipe__project__created_at", "recipe__position")
    )
    counts = dict(
        Label.objects.filter(annotator=annotator)
        .values_list("item__recipe")
        .annotate(n=Count("id"))
        .values_list("item__recipe", "n")
    )
    return [
        QueueEntry(a, counts.get(a.recipe_id, 0), a.steps * len(a.recipe.project.properties))  # type: ignore[attr-defined]
        for a in assignments
    ]


def project_progress(project: Project) -> dict[str, Any]:
    return projects_progress([project])[project.pk]


def projects_progress(projects: list[Project]) -> dict[int, dict[str, Any]]:
    """Each project's recipes, submitted assignments, items and gold, by project id: four grouped
    queries for any number of projects (the list of projects made five per project)."""
    ids = [p.pk for p in projects]
    assigned = {
        row["recipe__project"]: row
        for row in Assignment.objects.filter(recipe__project__in=ids)
        .values("recipe__project")
        .annotate(total=Count("id"), submitted=Count("id", filter=Q(submitted_at__isnull=False)))
    }
    items = dict(
        Item.objects.filter(project__in=ids).values("project").annotate(n=Count("id")).values_list("project", "n")
    )
    gold = dict(
        GoldLabel.objects.filter(item__project__in=ids)
        .values("item__project")
        .annotate(n=Count("id"))
        .values_list("item__project", "n")
    )
    recipes = dict(
        ProjectRecipe.objects.filter(project__in=ids)
        .values("project")
        .annotate(n=Count("id"))
        .values_list("project", "n")
    )
    progress = {}
    for project in projects:
        row = assigned.get(project.pk)
        total, submitted = (row["total"], row["submitted"]) if row else (0, 0)
        progress[project.pk] = {
            "recipes": recipes.get(project.pk, 0),
            "assignments": total,
            "submitted": submitted,
            "open": total - submitted,
            "percent": round(100 * submitted / total) if total else 0,
            "items": items.get(project.pk, 0),
            "gold": gold.get(project.pk, 0),
            "gold_needed": items.get(project.pk, 0) * len(project.properties),
        }
    return progress


def per_annotator_progress(project: Project) -> list[dict[str, Any]]:
    rows = (
        Assignment.objects.filter(recipe__project=project)
        .values("annotator__name")
        .annotate(total=Count("id"), submitted=Count("id", filter=Q(submitted_at__isnull=False)))
        .order_by("annotator__name")
    )
    return [
        {"annotator": r["annotator__name"], "total": r["total"], "submitted": r["submitted"]}
        | {"percent": round(100 * r["submitted"] / r["total"]) if r["total"] else 0}
        for r in rows
    ]
