"""Our own tasks (``games/content/tasks/*.toml``) as scenarios ``bundled/<file name>``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from games.bundled import CONTENT_DIR
from games.catalog.tasks.records import record_task
from games.domains.tasks.content import read_task

TASKS_DIR = CONTENT_DIR / "tasks"


def task_files(folder: Path = TASKS_DIR) -> list[Path]:
    return sorted(folder.glob("*.toml"))


@transaction.atomic
def load(log: Callable[[str], None] = print, folder: Path = TASKS_DIR) -> int:
    """Store every bundled task; return how many scenarios changed (0 on a second run)."""
    changed = 0
    for path in task_files(folder):
        definition = read_task(path.stem, path.read_text(encoding="utf-8"))
        _, was_changed = record_task(slug=f"bundled/{path.stem}", source="bundled", definition=definition)
        changed += was_changed
    log(f"tasks: {len(task_files(folder))} bundled tasks, {changed} changed")
    return changed
