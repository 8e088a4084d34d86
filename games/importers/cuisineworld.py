"""Import CuisineWorld (MindAgent): ``recipe.json`` and ``tasks_level_final.json``.

``manage.py import_dataset cuisineworld ../shared/datasets/cuisineworld`` stores the recipe book in
the kitchen catalogue and each level as scenario ``cuisineworld/<level>``. Reading and repairing
the files is pure (``games.domains.kitchen.cuisineworld_format``: what is repaired or refused, and
why); this module stores the result and reports every repair and refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from games.domains.kitchen.cuisineworld_format import Converted, folder_of, load_recipes, read_cuisineworld
from games.domains.kitchen.world import LevelError
from games.importers import ImportProblem, ImportSummary

SOURCE = "cuisineworld"


def levels(path: Path) -> Converted:
    """Every level under ``path``; raises ImportProblem naming the file at fault."""
    try:
        return read_cuisineworld(path)
    except LevelError as error:
        raise ImportProblem(str(error)) from None


def import_dataset(path: Path, log: Callable[[str], None] = print) -> ImportSummary:
    from games.importers.kitchen_store import store_level, store_recipes

    converted = levels(path)  # checks both files before anything is stored
    summary = ImportSummary()
    changed_recipes = store_recipes(SOURCE, load_recipes(folder_of(path)))
    if changed_recipes:
        summary.notes.append(f"{changed_recipes} recipes stored or changed")
    for name, (definition, remarks) in converted.items():
        if definition is None:
            message = f"{name} refused: {'; '.join(remarks)}"
            log(message)
            summary.notes.append(message)
            continue
        notes = ""
        if remarks:
            notes = f"Repaired on import: {'; '.join(remarks)}."
            log(f"{name} repaired: {'; '.join(remarks)}")
            summary.notes.append(f"{name} repaired: {'; '.join(remarks)}")
        status = store_level(
            slug=f"cuisineworld/{name}",
            name=name,
            title=f"CuisineWorld {name.replace('_', ' ')}",
            source=SOURCE,
            definition=definition,
            description=f"Orders {', '.join(definition['dishes'])}. {notes}".strip(),
            notes=notes,
        )
        setattr(summary, status, getattr(summary, status) + 1)
    return summary
