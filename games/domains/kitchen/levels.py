"""Reading authored kitchen levels: one JSON file per level plus a shared ``recipes.json`` (format:
docs/scenarios.md, section kitchen). Pure, so the rules' tests and the planners can use the
bundled levels without a database.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from games.domains.kitchen.state import build_level
from games.domains.kitchen.world import LevelError, parse_recipes, recipe_closure

RECIPE_BOOK = "recipes.json"


def read_levels(folder: Path) -> dict[str, dict[str, Any]]:
    """Every level in ``folder`` as a scenario definition, by name; raises LevelError naming the
    file at fault (bad JSON, unknown dish, a dish the kitchen cannot make)."""
    book = folder / RECIPE_BOOK
    try:
        recipes = parse_recipes(json.loads(book.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError, LevelError) as error:
        raise LevelError(f"{book}: {error}") from None
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == RECIPE_BOOK:
            continue
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            name = str(raw.get("name") or path.stem)
            closure = recipe_closure(raw["dishes"], recipes)
            definition = {
                "name": name,
                "title": raw.get("title", name),
                "description": raw.get("description", ""),
                "kitchen": raw["kitchen"],
                "dishes": raw["dishes"],
                "recipes": {product: recipe.to_json() for product, recipe in closure.items()},
                "agents": int(raw.get("agents", 2)),
                "max_steps": int(raw.get("max_steps", 60)),
            }
            for tuning in ("alpha", "beta"):  # optional per-level defaults (order pace, lifetimes)
                if tuning in raw:
                    definition[tuning] = float(raw[tuning])
            build_level(definition, seed=0, options=None)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise LevelError(f"{path}: {error}") from None
        found[name] = definition
    return found
