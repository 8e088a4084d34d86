"""Reading CuisineWorld's files (MindAgent: ``recipe.json``, ``tasks_level_final.json``) into our
level definitions. Pure: the importer stores the result; tests and the CLI read it directly.

Known faults of the data, and what we do (SPEC section 4):

- ``task_interval`` and ``task_lifetime`` are placeholders: ignored; the rules derive them from α.
- A level that orders a dish its kitchen cannot make (level_12 orders frenchFries without a
  fryer) is **repaired**: the missing tool kinds are added to its kitchen, one of each, and the
  repair is reported. A level whose dish has no recipe at all cannot be repaired and is
  **refused**, with the reason.
- ``num_agents`` is only a default; the number of agents is chosen per game.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from games.domains.kitchen.world import (
    SERVING_TABLE,
    STORAGE,
    TOOL_KINDS,
    LevelError,
    Recipe,
    parse_recipes,
    recipe_closure,
    tools_needed,
    unmakeable,
)

RECIPES_FILE = "recipe.json"
LEVELS_FILE = "tasks_level_final.json"

#: name -> (definition, repairs) for a playable level, or (None, [reason]) for a refused one.
Converted = dict[str, tuple[dict[str, Any] | None, list[str]]]


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LevelError(f"{path} is missing; the CuisineWorld folder holds {RECIPES_FILE} and {LEVELS_FILE}") from None
    except json.JSONDecodeError as error:
        raise LevelError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from None


def folder_of(path: Path) -> Path:
    """The data folder, also when given one of its files."""
    return path.parent if path.is_file() else path


def load_recipes(folder: Path) -> dict[str, Recipe]:
    raw = read_json(folder / RECIPES_FILE)
    if not isinstance(raw, dict):
        raise LevelError(f"{folder / RECIPES_FILE}: expected an object of recipes")
    try:
        return parse_recipes(raw)
    except LevelError as error:
        raise LevelError(f"{folder / RECIPES_FILE}: {error}") from None


def convert_level(name: str, raw: Mapping[str, Any], recipes: Mapping[str, Recipe]) -> tuple[dict[str, Any], list[str]]:
    """Our scenario definition for one CuisineWorld level and the repairs made to it.

    Raises LevelError when the level cannot be played even after repair.
    """
    kitchen = raw.get("kitchen")
    task_list = raw.get("task_list")
    if not isinstance(kitchen, list) or not isinstance(task_list, dict) or not task_list:
        raise LevelError(f"{name}: needs a 'kitchen' list and a non-empty 'task_list'")
    unknown = [kind for kind in kitchen if kind not in TOOL_KINDS]
    if unknown:
        raise LevelError(f"{name}: unknown tools {unknown}")
    dishes = list(task_list)
    for dish, task in task_list.items():
        if task.get("ingredients") != [dish] or task.get("location") != SERVING_TABLE:
            raise LevelError(f"{name}: task {dish!r} must be that one dish on the serving table")
    kitchen = list(kitchen)
    repairs: list[str] = []
    for required in (STORAGE, SERVING_TABLE):
        if required not in kitchen:
            kitchen.append(required)
            repairs.append(f"added the missing {required}")
    problems = unmakeable(dishes, kitchen, recipes)
    for dish, missing in problems.items():
        if any(kind not in TOOL_KINDS for kind in missing):
            raise LevelError(f"{name}: cannot make {dish}: {'; '.join(missing)}")
    for dish in problems:
        for kind in sorted(tools_needed(dish, recipes) - set(kitchen)):
            kitchen.append(kind)
            repairs.append(f"{dish} needs a {kind}, which the kitchen lacked: added {kind}0")
    definition = {
        "name": name,
        "kitchen": kitchen,
        "dishes": dishes,
        "recipes": {product: recipe.to_json() for product, recipe in recipe_closure(dishes, recipes).items()},
        "agents": int(raw.get("num_agents", 2)),
        "max_steps": 60,
    }
    return definition, repairs


def read_cuisineworld(folder: Path) -> Converted:
    """Every level of the folder; raises LevelError when a file is missing or malformed."""
    folder = folder_of(folder)
    recipes = load_recipes(folder)
    raw_levels = read_json(folder / LEVELS_FILE)
    if not isinstance(raw_levels, dict):
        raise LevelError(f"{folder / LEVELS_FILE}: expected an object of levels")
    converted: Converted = {}
    for name, raw in raw_levels.items():
        try:
            converted[name] = convert_level(name, raw, recipes)
        except LevelError as error:
            converted[name] = (None, [str(error)])
    return converted
