"""Exports: labels in the long CSV / JSONL format (streamed, constant memory) and gold as recipes.

The CSV is exactly what ``import_annotations`` reads, so a project moves between installs or
tools and back. Gold labels export as Recipe2Plan-format recipes (SPEC section 3).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from annotations.importing import HEADER
from annotations.models import GoldLabel, Item, Project
from annotations.schema import apply_labels_to_step
from annotations.selectors import final_labels, gold_of
from arena_site.spreadsheet import safe_cell
from games.catalog.recipes.models import Recipe
from games.engine.durations import amount_text

GOLD_ANNOTATOR = "gold"


def label_rows(project: Project, *, gold: bool = False) -> Iterator[tuple[str, str, str, str]]:
    """(item_id, annotator, property, label) of the final labels, or of the gold labels as annotator "gold"."""
    if gold:
        rows = (
            GoldLabel.objects.filter(item__project=project)
            .order_by("item__recipe__position", "item__step", "property")
            .values_list("item__key", "property", "value")
        )
        for key, prop, value in rows.iterator(chunk_size=2000):
            yield key, GOLD_ANNOTATOR, prop, value
        return
    yield from final_labels(project, ordered=True)


def csv_lines(project: Project, *, gold: bool = False) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for row in label_rows(project, gold=gold):
        writer.writerow([safe_cell(cell) if isinstance(cell, str) else cell for cell in row])
        if buffer.tell() > 16384:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def jsonl_lines(project: Project, *, gold: bool = False) -> Iterator[str]:
    for row in label_rows(project, gold=gold):
        yield json.dumps(dict(zip(HEADER, row, strict=True))) + "\n"


def recipe_record(recipe: Recipe) -> dict[str, Any]:
    """A catalogue recipe in Recipe2Plan's format: {"recipe": name, "steps": [...]}."""
    steps = []
    for step in recipe.steps.order_by("index"):
        steps.append(
            {
                "step": step.index,
                "text": step.text,
                "time": amount_text(step.duration_seconds),
                "prequisites": list(step.prerequisites),
                "time_constraint": {str(k): f"{int(v)} min" for k, v in (step.time_constraints or {}).items()},
                "interrupt": int(step.interruptible),
                "parallel": int(step.autonomous),
                "physical": dict(step.physical or {}),
            }
        )
    return {"recipe": recipe.name, "steps": steps}


def gold_recipes(project: Project) -> list[dict[str, Any]]:
    """Every catalogue recipe of the project with its gold labels written over its steps.

    Steps (or properties) without gold keep what the recipe says; recipes imported without a
    catalogue entry cannot be rebuilt and are left out.
    """
    gold = gold_of(project)
    out = []
    for unit in project.recipes.exclude(recipe=None).select_related("recipe"):
        assert unit.recipe is not None
        record = recipe_record(unit.recipe)
        steps = []
        for step in record["steps"]:
            key = f"{unit.name}/{step['step']}"
            labels = {prop: values[key] for prop, values in gold.items() if key in values}
            steps.append(apply_labels_to_step(step, labels))
        out.append({"recipe": unit.name, "steps": steps})
    return out


def items_without_gold(project: Project) -> int:
    needed = Item.objects.filter(project=project).count() * len(project.properties)
    return needed - GoldLabel.objects.filter(item__project=project).count()
