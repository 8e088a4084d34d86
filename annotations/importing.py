"""Importing labels made elsewhere: the long CSV format ``item_id,annotator,property,label``.

All rows are checked before anything is written; any bad row (reported with its line number and
what to write instead) means nothing is imported. Unknown projects, annotators and items are
created: an item of a recipe in the catalogue brings the whole recipe (every step, so the
labelling page and gold export work); an item of a recipe we do not have is created on its own.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotations.models import Annotator, Assignment, Item, Label, Project, ProjectRecipe
from annotations.schema import PROPERTIES, LabelError, check_label, parse_item_id
from annotations.services import add_recipe
from arena_site.spreadsheet import read_cell
from games.catalog.recipes.models import Recipe
from games.schema import text_problem

HEADER = ["item_id", "annotator", "property", "label"]
MAX_REPORTED = 20
MAX_CELL = 300  # no item id, annotator name, property or label is longer


class ImportFailed(ValueError):
    """The file has bad rows; ``problems`` lists them (line number first), nothing was imported."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:MAX_REPORTED]
        more = f"\n... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        super().__init__("Nothing was imported; fix these rows and import again:\n" + "\n".join(shown) + more)


@dataclass(frozen=True)
class Row:
    line: int
    recipe: str
    step: int
    annotator: str
    prop: str
    label: str

    @property
    def key(self) -> str:
        return f"{self.recipe}/{self.step}"


def _known_steps(project: Project | None, names: Iterable[str]) -> dict[str, list[int]]:
    """Step indices per recipe name we can check references against (project items, else catalogue)."""
    known: dict[str, list[int]] = {}
    for recipe in Recipe.objects.filter(name__in=set(names), is_current=True).prefetch_related("steps"):
        known[recipe.name] = [s.index for s in recipe.steps.all()]
    if project is not None:
        for unit in project.recipes.filter(name__in=set(names)):
            if unit.recipe_id is not None:
                known[unit.name] = list(unit.items.values_list("step", flat=True))
            else:
                known.pop(unit.name, None)  # an imported recipe: any step may be added
    return known


MAX_ANNOTATOR, MAX_RECIPE, MAX_LABEL, MAX_STEP = 150, 200, 200, 9999  # the columns' sizes


def read_rows(lines: Iterable[str], project: Project | None = None) -> list[Row]:
    """Parse and check every row; raise ImportFailed listing every bad one."""
    reader = csv.reader(lines)
    problems: list[str] = []
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise ImportFailed([f"line 1: {error}; the first line must be {','.join(HEADER)}"]) from None
    if header is None:
        raise ImportFailed(["line 1: the file is empty; the first line must be " + ",".join(HEADER)])
    if [h.strip().lower() for h in header] != HEADER:
        raise ImportFailed([f"line 1: the header must be {','.join(HEADER)}, not {','.join(header)}"])
    raw: list[tuple[int, list[str]]] = []
    try:
        for record in reader:
            if any(c.strip() for c in record):
                raw.append((reader.line_num, record))
    except csv.Error as error:
        # e.g. a field over csv.field_size_limit(): one line naming where, nothing imported
        raise ImportFailed([f"line {reader.line_num}: {error}; is this the CSV you meant?"]) from None
    rows: list[Row] = []
    for line, cells in raw:
        if len(cells) != 4:
            problems.append(f"line {line}: expected 4 columns ({','.join(HEADER)}), found {len(cells)}")
            continue
        bad = next((HEADER[i] for i, cell in enumerate(cells) if text_problem(cell) or len(cell) > MAX_CELL), None)
        if bad is not None:
            problems.append(f"line {line}: field {bad} has a NUL byte, invalid text or more than {MAX_CELL} characters")
            continue
        item_id, annotator, prop, label = (read_cell(c.strip()) for c in cells)
        try:
            ref = parse_item_id(item_id)
        except LabelError as exc:
            problems.append(f"line {line}: {exc}")
            continue
        if not annotator:
            problems.append(f"line {line}: the annotator is empty; name who gave the label")
            continue
        too_long = next(
            (
                f"line {line}: field {field} is longer than {most} characters"
                for field, text, most in (
                    ("annotator", annotator, MAX_ANNOTATOR),
                    ("item_id", ref.recipe, MAX_RECIPE),
                    ("label", label, MAX_LABEL),
                )
                if len(text) > most
            ),
            None,
        )
        if too_long or ref.step > MAX_STEP:
            # as the database stores them: Postgres refused the row with a server error
            problems.append(too_long or f"line {line}: field item_id: step {ref.step} is past {MAX_STEP}")
            continue
        if prop not in PROPERTIES:
            problems.append(f"line {line}: unknown property {prop!r}; use one of {', '.join(PROPERTIES)}")
            continue
        rows.append(Row(line, ref.recipe, ref.step, annotator, prop, label))
    known = _known_steps(project, {r.recipe for r in rows})
    seen: dict[tuple[str, str, str], Row] = {}
    for row in rows:
        steps = known.get(row.recipe)
        if steps is not None and row.step not in steps:
            problems.append(f"line {row.line}: recipe {row.recipe} has no step {row.step} (it has {len(steps)} steps)")
            continue
        try:
            check_label(row.prop, row.label, step=row.step, steps=steps)
        except LabelError as exc:
            problems.append(f"line {row.line}: {exc}")
            continue
        earlier = seen.setdefault((row.key, row.annotator, row.prop), row)
        if earlier is not row and earlier.label != row.label:
            problems.append(
                f"line {row.line}: {row.annotator} labelled {row.key} {row.prop} {earlier.label!r} on line "
                f"{earlier.line} and {row.label!r} here; keep one"
            )
    names = {r.annotator for r in rows}
    # a person of the site, whether or not they have labelled yet: imported labels in their name
    # were theirs, and the project turned up in their queue
    people = set(Annotator.objects.filter(name__in=names, user__isnull=False).values_list("name", flat=True))
    people |= set(get_user_model().objects.filter(username__in=names).values_list("username", flat=True))
    for row in rows:
        if row.annotator in people:
            problems.append(
                f"line {row.line}: field annotator: {row.annotator} labels on this site; an import never changes"
                f" a person's labels (name the file's annotator differently, e.g. imported:{row.annotator})"
            )
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: int(p.split(":")[0].split()[1])))
    return rows


def _annotator(name: str) -> Annotator:
    """The file's annotator: never a person of the site (``read_rows`` refuses their names)."""
    annotator = Annotator.objects.filter(name=name).first()
    if annotator is None:
        annotator = Annotator.objects.create(name=name, is_model=name.startswith("model:"))
    return annotator


@transaction.atomic
def import_labels(project_name: str, lines: Iterable[str], created_by: Any = None) -> dict[str, Any]:
    """Import a CSV into ``project_name`` (created if missing); imported labels count as submitted."""
    project = Project.objects.filter(name=project_name).first()
    rows = read_rows(lines, project)
    if not rows:
        raise ImportFailed(["the file has a header but no rows; nothing to import"])
    created_project = project is None
    if project is None:
        project = Project.objects.create(name=project_name, properties=[], created_by=created_by)
    used = {r.prop for r in rows}
    project.properties = [p for p in PROPERTIES if p in used or p in project.properties]
    project.save(update_fields=["properties"])

    units = {u.name: u for u in project.recipes.all()}
    catalogue = {r.name: r for r in Recipe.objects.filter(name__in={r.recipe for r in rows}, is_current=True)}
    for name in sorted({r.recipe for r in rows} - set(units)):
        position = len(units)
        if name in catalogue:
            units[name] = add_recipe(project, catalogue[name], position)
        else:
            units[name] = ProjectRecipe.objects.create(project=project, name=name, position=position)
    items = {i.key: i for i in Item.objects.filter(project=project)}
    new_items = [
        Item(project=project, recipe=units[r.recipe], step=r.step, key=r.key)
        for r in {r.key: r for r in rows if r.key not in items}.values()
    ]
    for item in Item.objects.bulk_create(new_items):
        items[item.key] = item
    if any(i.pk is None for i in items.values()):  # backends that do not return ids from bulk inserts
        items = {i.key: i for i in Item.objects.filter(project=project)}

    annotators = {name: _annotator(name) for name in sorted({r.annotator for r in rows})}
    now = timezone.now()
    pairs = {(units[r.recipe].pk, annotators[r.annotator].pk) for r in rows}
    existing = Assignment.objects.filter(recipe__project=project, annotator__in=annotators.values())
    have = set(existing.values_list("recipe_id", "annotator_id"))
    Assignment.objects.bulk_create(
        Assignment(recipe_id=recipe, annotator_id=annotator, submitted_at=now)
        for recipe, annotator in sorted(pairs - have)
    )
    # An open assignment the import fills counts as submitted: the labels come finished from elsewhere.
    for recipe, annotator in pairs & have:
        Assignment.objects.filter(recipe_id=recipe, annotator_id=annotator, submitted_at=None).update(submitted_at=now)
    # One row per (item, annotator, property): Postgres refuses to upsert the same row twice in one statement.
    unique = {(r.key, r.annotator, r.prop): r for r in rows}.values()
    Label.objects.bulk_create(
        [Label(item=items[r.key], annotator=annotators[r.annotator], property=r.prop, value=r.label) for r in unique],
        update_conflicts=True,
        unique_fields=["item", "annotator", "property"],
        update_fields=["value", "updated_at"],
        batch_size=2000,
    )
    return {
        "project": project.name,
        "created_project": created_project,
        "labels": len({(r.key, r.annotator, r.prop) for r in rows}),
        "annotators": len(annotators),
        "items": len({r.key for r in rows}),
        "new_items": len(new_items),
    }
