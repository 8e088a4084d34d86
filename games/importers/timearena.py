"""``manage.py import_dataset timearena PATH``: TimeArena's dependencygraph.json as scenarios.

Each of the 30 tasks becomes the scenario ``timearena/<name>`` (e.g. ``timearena/cooking1``) with
its catalogue rows. Importing the same file twice changes nothing; a malformed file is refused with
the task and field at fault, and the caller's transaction keeps anything from being half-imported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from games.catalog.tasks.records import record_task
from games.domains.tasks.timearena import FormatProblem, read
from games.importers import ImportProblem, ImportSummary
from games.models import Scenario


def import_dataset(path: Path, log: Callable[[str], None] = print) -> ImportSummary:
    """Store every task of the file; the summary's notes list the two name corrections."""
    target = Path(path)
    if target.is_dir():
        target = target / "dependencygraph.json"
    try:
        raw = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ImportProblem(f"{target}: no such file; give the path of dependencygraph.json") from None
    except json.JSONDecodeError as error:
        raise ImportProblem(f"{target}: line {error.lineno}, column {error.colno}: {error.msg}") from None
    try:
        definitions, notes = read(raw)
    except FormatProblem as error:
        raise ImportProblem(f"{target.name}: {error}") from None
    summary = ImportSummary(notes=notes)
    with transaction.atomic():
        for name, definition in definitions.items():
            slug = f"timearena/{name}"
            existed = Scenario.objects.filter(slug=slug).exists()
            _, changed = record_task(
                slug=slug, source="timearena", definition=definition, family=name.rstrip("0123456789")
            )
            if not changed:
                summary.unchanged += 1
            elif existed:
                summary.updated += 1
            else:
                summary.created += 1
    return summary
