"""Our own kitchen levels (``games/content/kitchen/``): one JSON file per level plus the shared
recipe book ``recipes.json`` (format: docs/scenarios.md, section kitchen). Stored as scenarios
``bundled/<name>``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from games.bundled import CONTENT_DIR
from games.domains.kitchen.levels import RECIPE_BOOK, read_levels
from games.domains.kitchen.world import LevelError, parse_recipes
from games.importers import ImportProblem

KITCHEN_DIR = CONTENT_DIR / "kitchen"


def definitions() -> dict[str, dict[str, Any]]:
    """Every bundled level as a scenario definition, by name (checked playable)."""
    try:
        return read_levels(KITCHEN_DIR)
    except LevelError as error:
        raise ImportProblem(str(error)) from None


def load(log: Callable[[str], None] = print) -> int:
    from games.importers.kitchen_store import store_level, store_recipes

    store_recipes("bundled", parse_recipes(json.loads((KITCHEN_DIR / RECIPE_BOOK).read_text(encoding="utf-8"))))
    changed = 0
    for name, definition in definitions().items():
        status = store_level(
            slug=f"bundled/{name}",
            name=name,
            title=definition["title"],
            source="bundled",
            definition=definition,
            description=definition["description"],
        )
        if status != "unchanged":
            changed += 1
            log(f"kitchen: bundled/{name} {status}")
    return changed
