"""Importers of the public benchmark data and loaders of our bundled content.

``manage.py import_dataset NAME PATH`` calls ``games.importers.<NAME>.import_dataset(path, log)``
inside one transaction: an importer raises ``ImportProblem`` naming the line or field at fault, and
nothing is half-imported. Importers must be idempotent (importing twice changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field


class ImportProblem(ValueError):
    """A file that cannot be imported; the message names the file, line or field at fault."""


@dataclass
class ImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        text = f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"
        return text + "".join(f"\n  note: {note}" for note in self.notes)


DATASETS = {
    "timearena": "games.importers.timearena",
    "recipe2plan": "games.importers.recipe2plan",
    "cuisineworld": "games.importers.cuisineworld",
    "itinerarybench": "games.importers.itinerarybench",
}
