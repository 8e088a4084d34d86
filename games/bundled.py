"""The bundled content every fresh install gets (``seed_demo`` calls ``load_bundled``).

Each domain registers a loader here as "module:function"; a loader takes ``log`` and returns the
number of scenarios it changed. Authored content lives as data files in ``games/content/<domain>/``
(format: docs/scenarios.md).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path

CONTENT_DIR = Path(__file__).resolve().parent / "content"

BUNDLED_LOADERS: list[str] = [
    "games.importers.bundled_tasks:load",
    "games.importers.bundled_recipes:load",
    "games.importers.bundled_kitchen:load",
    "games.importers.bundled_itinerary:load",
]


def load_bundled(log: Callable[[str], None] = print) -> int:
    changed = 0
    for path in BUNDLED_LOADERS:
        module_name, func_name = path.split(":")
        try:
            loader = getattr(import_module(module_name), func_name)
        except ModuleNotFoundError as error:
            if error.name and module_name.startswith(error.name):
                continue  # that domain's content has not landed yet
            raise
        changed += loader(log=log)
    return changed
