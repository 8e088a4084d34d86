"""Import Recipe2Plan's ``cooking.json`` (65 two-recipe instances, 24 distinct recipes).

Every distinct recipe becomes a Recipe version (source ``recipe2plan``) and every instance a
Scenario ``recipe2plan/<Recipe1>_<Recipe2>``. Idempotent: importing the same file again changes
nothing; ``manage.py import_dataset`` wraps the call in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from games.catalog.recipes.services import build_scenario, import_recipe, steps_from_definition
from games.domains.recipes.dataset import read_instances
from games.domains.recipes.kitchen import DefinitionError
from games.importers import ImportProblem, ImportSummary

SOURCE = "recipe2plan"


def read(path: Path) -> dict[str, dict]:
    """The instances of a cooking.json file; raises ImportProblem naming what is wrong."""
    target = Path(path)
    if target.is_dir():
        target = target / "cooking.json"
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ImportProblem(f"{target} does not exist; give the path of Recipe2Plan's cooking.json") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ImportProblem(f"{target} is not JSON ({error}); give the path of Recipe2Plan's cooking.json") from None
    try:
        return read_instances(data)
    except DefinitionError as error:
        raise ImportProblem(f"{target}: {error}") from None


def import_dataset(path: Path, log: Callable[[str], None] = print) -> ImportSummary:
    instances = read(path)
    summary = ImportSummary()
    recipes: dict[str, dict] = {}
    for definition in instances.values():
        for recipe in definition["recipes"]:
            seen = recipes.setdefault(recipe["name"], recipe)
            if seen != recipe:
                raise ImportProblem(f"recipe {recipe['name']!r} appears with different steps in two instances")
    for name, recipe in recipes.items():
        _, status = import_recipe(name, steps_from_definition(recipe), SOURCE)
        if status == "kept":
            summary.notes.append(f"{name}: kept the annotated version (the imported steps are unchanged)")
    for instance, definition in instances.items():
        names = [recipe["name"] for recipe in definition["recipes"]]
        _, changed = build_scenario(
            f"{SOURCE}/{instance}",
            names,
            title=" & ".join(name.replace("-", " ") for name in names),
            source=SOURCE,
            description=f"Recipe2Plan instance {instance}: cook {' and '.join(names)} at once.",
        )
        if changed:
            summary.created += 1
        else:
            summary.unchanged += 1
    log(f"recipe2plan: {len(recipes)} recipes, {len(instances)} instances")
    return summary
