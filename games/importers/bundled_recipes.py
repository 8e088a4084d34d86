"""Load our own authored recipes (games/content/recipes/<Name>.json) and their pairings
(scenarios.json) as scenarios ``bundled/<Recipe1>_<Recipe2>``. Format: docs/scenarios.md."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from games.bundled import CONTENT_DIR
from games.catalog.recipes.services import build_scenario, import_recipe, steps_from_definition
from games.domains.recipes.dataset import convert_authored
from games.domains.recipes.kitchen import DefinitionError
from games.importers import ImportProblem

SOURCE = "bundled"
FOLDER = CONTENT_DIR / "recipes"


def authored_recipes(folder: Path = FOLDER) -> dict[str, dict]:
    recipes: dict[str, dict] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == "scenarios.json":
            continue
        try:
            recipe = convert_authored(json.loads(path.read_text(encoding="utf-8")), where=path.name)
        except (json.JSONDecodeError, DefinitionError) as error:
            raise ImportProblem(f"{path}: {error}") from None
        recipes[recipe["name"]] = recipe
    return recipes


def pairings(folder: Path = FOLDER) -> list[dict]:
    path = folder / "scenarios.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ImportProblem(f"{path}: {error}") from None


def load(log: Callable[[str], None] = print, folder: Path = FOLDER) -> int:
    """Store the authored recipes and scenarios; returns how many scenarios changed."""
    recipes = authored_recipes(folder)
    for name, recipe in recipes.items():
        import_recipe(name, steps_from_definition(recipe), SOURCE)
    changed = 0
    for number, pairing in enumerate(pairings(folder)):
        names = pairing["recipes"]
        missing = [name for name in names if name not in recipes]
        if missing:
            raise ImportProblem(f"scenarios.json entry {number} names unknown recipes {missing}; add their files")
        _, did_change = build_scenario(
            f"{SOURCE}/{'_'.join(names)}",
            names,
            title=pairing.get("title") or " & ".join(names),
            source=SOURCE,
            description=pairing.get("description", ""),
        )
        changed += did_change
    log(f"bundled recipes: {len(recipes)} recipes, {changed} scenarios changed")
    return changed
