"""The bundled content every fresh install gets (``seed_demo`` calls ``load_bundled``).

Each domain's descriptor names its loader (``bundled``, "module:function"); a loader takes ``log``
and returns the number of scenarios it changed. Authored content lives as data files in ``games/content/<domain>/``
(format: docs/scenarios.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from games.engine import registry

CONTENT_DIR = Path(__file__).resolve().parent / "content"


def load_bundled(log: Callable[[str], None] = print) -> int:
    changed = 0
    for domain in registry.descriptors():
        loader = domain.part("bundled")
        if loader is not None:
            changed += loader(log=log)
    return changed
