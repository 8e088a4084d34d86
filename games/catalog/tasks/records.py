"""Storing one task: its scenario version and the catalogue rows that mirror it, in one transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.catalog.tasks.models import Action, Prerequisite, Task, TaskObject
from games.domains.tasks.definition import compile_definition
from games.models import Scenario
from games.scenarios import save_scenario


@transaction.atomic
def record_task(*, slug: str, source: str, definition: dict[str, Any], family: str = "") -> tuple[Scenario, bool]:
    """Save a single-task definition under ``slug``; on a new version, write its catalogue rows."""
    task = definition["tasks"][0]
    scenario, changed = save_scenario(
        domain="tasks",
        slug=slug,
        title=definition.get("title") or task.get("title") or task["name"],
        source=source,
        description=task.get("goal", ""),
        definition=definition,
    )
    if not changed and Task.objects.filter(scenario=scenario).exists():
        return scenario, False
    compiled = compile_definition(definition)
    record = Task.objects.create(
        scenario=scenario,
        name=task["name"],
        title=task.get("title") or task["name"],
        goal=task.get("goal", ""),
        source=source,
        family=family,
    )
    per_use: dict[str, int] = {}
    for action in compiled.actions:
        for name in action.objects:
            if compiled.object_index[name].appliance and action.background:
                per_use[name] = per_use.get(name, 0) + 1
    objects = {
        obj.name: TaskObject.objects.create(
            task=record, name=obj.name, appliance=obj.appliance, count=max(per_use.get(obj.name, 1), 1)
        )
        for obj in compiled.objects
    }
    rows = []
    for action in compiled.actions:
        row = Action.objects.create(
            task=record,
            position=action.index,
            name=action.text,
            verb=action.verb,
            minutes=action.minutes,
            background=action.background,
        )
        row.uses.set([objects[name] for name in action.objects])
        rows.append(row)
    Prerequisite.objects.bulk_create(
        Prerequisite(action=rows[action.index], requires=rows[needed])
        for action in compiled.actions
        for needed in action.requires
    )
    return scenario, changed
