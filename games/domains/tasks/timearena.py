"""Reading TimeArena's published ``dependencygraph.json`` into our task definitions (pure).

The file maps each task name to ``[ {action: minutes}, {action: [prerequisite actions]} ]``; a
trailing ``*`` marks a type 2 (background) action. Two object names differ from the environment
the paper's agents played, and we correct them (SPEC section 2): in household4 the trimmed and
watered ``fruit`` is the ``fruit_tree``, and in lab3 the stirred ``solution`` is the ``beaker``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.domains.tasks.definition import FORMAT, DefinitionError, split_action, validate
from games.domains.tasks.vocabulary import DEFAULT_APPLIANCES

# (task, action as published) -> action as played, with why.
CORRECTIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("household4", "water fruit by watering_can"): (
        "water fruit_tree by watering_can",
        "household4: 'fruit' is the fruit_tree that is watered and trimmed",
    ),
    ("lab3", "stir solution with magnetic_stirrer"): (
        "stir beaker with magnetic_stirrer",
        "lab3: the 'solution' that is stirred is the beaker",
    ),
}

_TITLES = {"cooking": "Cooking", "household": "Household", "lab": "Lab"}


class FormatProblem(ValueError):
    """The file does not have the published shape; the message names the task and field."""


def _check_pair(name: str, value: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    if not isinstance(value, list) or len(value) != 2:
        raise FormatProblem(f"{name}: expected a pair [{{action: minutes}}, {{action: [prerequisites]}}]")
    minutes, requires = value
    if not isinstance(minutes, Mapping) or not minutes:
        raise FormatProblem(f"{name}[0]: expected a non-empty object of action: minutes")
    if not isinstance(requires, Mapping):
        raise FormatProblem(f"{name}[1]: expected an object of action: [prerequisite actions]")
    return minutes, requires


def task_definition(name: str, value: Any) -> tuple[dict[str, Any], list[str]]:
    """One published task as a definition, and notes about corrections made."""
    minutes, requires = _check_pair(name, value)
    notes: list[str] = []

    def played(published: str) -> str:
        text = published.rstrip("*").strip()
        fixed = CORRECTIONS.get((name, text))
        if fixed is None:
            return text
        if fixed[1] not in notes:
            notes.append(fixed[1])
        return fixed[0]

    for action, value_ in minutes.items():
        if not isinstance(value_, int) or isinstance(value_, bool) or value_ < 1:
            raise FormatProblem(f"{name}[0]['{action}']: minutes must be a positive whole number, got {value_!r}")
    for action, parents in requires.items():
        if action not in minutes:
            raise FormatProblem(f"{name}[1]['{action}']: not an action listed in {name}[0]")
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
            raise FormatProblem(f"{name}[1]['{action}']: expected a list of action names")
        for parent in parents:
            if parent not in minutes:
                raise FormatProblem(f"{name}[1]['{action}']: prerequisite '{parent}' is not an action of {name}")
    actions = []
    appliances: set[str] = set()
    for action, duration in minutes.items():
        text = played(action)
        try:
            objects = split_action(text)[1]
        except ValueError as error:
            raise FormatProblem(f"{name}[0]['{action}']: {error}") from None
        appliances.update(obj for obj in objects if obj in DEFAULT_APPLIANCES)
        actions.append(
            {
                "name": text,
                "minutes": duration,
                "background": action.endswith("*"),
                "requires": [played(parent) for parent in requires.get(action, [])],
            }
        )
    family = name.rstrip("0123456789")
    number = name[len(family) :]
    definition = {
        "format": FORMAT,
        "title": f"{_TITLES.get(family, family.title())} {number}".strip(),
        "tasks": [
            {
                "name": name,
                "title": f"{_TITLES.get(family, family.title())} {number}".strip(),
                "goal": _goal(family, [a["name"] for a in actions]),
                "appliances": sorted(appliances),
                "actions": actions,
            }
        ],
    }
    try:
        validate(definition)
    except DefinitionError as error:
        raise FormatProblem(f"{name}: {error}") from None
    return definition, notes


def _goal(family: str, actions: list[str]) -> str:
    # The published file has no goal sentences; we say what finishing means in its own terms.
    last = [text for text in actions if text.startswith(("add ", "pour ", "store ", "read ", "filter "))]
    if family == "cooking":
        return "Prepare every ingredient and put it in the dish."
    if last:
        return f"Complete every step, ending with {last[-1]}."
    return "Complete every step."


def read(raw: Any) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """All tasks of a parsed dependencygraph.json as {name: definition}, and the correction notes."""
    if not isinstance(raw, Mapping) or not raw:
        raise FormatProblem("top level: expected an object mapping task names to [minutes, prerequisites]")
    definitions: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for name, value in raw.items():
        if not isinstance(name, str) or not name.strip() or name != name.strip().lower() or " " in name:
            raise FormatProblem(f"task name {name!r}: expected a lower-case name like 'cooking1'")
        definitions[name], task_notes = task_definition(name, value)
        notes.extend(task_notes)
    return definitions, notes


def scenario_groups(names: list[str]) -> dict[str, list[str]]:
    """Tasks grouped by family (cooking, household, lab), each in numeric order: cooking1..cooking10."""
    groups: dict[str, list[str]] = {}
    for name in names:
        family = name.rstrip("0123456789")
        groups.setdefault(family, []).append(name)
    for members in groups.values():
        members.sort(key=lambda n: int(n[len(n.rstrip("0123456789")) :] or 0))
    return groups


def combinations(names: list[str]) -> list[list[str]]:
    """Every single, pair (i, i+1) and triple (i, i+1, i+2) per family, wrapping round (SPEC section 2)."""
    combos: list[list[str]] = []
    for members in scenario_groups(names).values():
        count = len(members)
        for size in (1, 2, 3):
            for i in range(count):
                combos.append([members[(i + k) % count] for k in range(size)])
    return combos
