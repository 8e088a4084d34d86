"""Our hand-written task files (TOML, one task per file; format in docs/scenarios.md) as definitions.

A file says what a researcher would say: the goal, the appliances, and each action with its
minutes, whether it runs in the background and what must happen ``after`` what::

    title = "Make tea"
    goal = "Brew a pot of tea and pour a cup."
    appliances = ["kettle"]

    [[actions]]
    do = "boil kettle"
    minutes = 4
    background = true
    after = ["fill kettle"]
"""

from __future__ import annotations

import tomllib
from typing import Any

from games.domains.tasks.definition import FORMAT, DefinitionError, check_new, validate

_TASK_KEYS = {"title", "goal", "appliances", "actions"}
_ACTION_KEYS = {"do", "minutes", "background", "after"}


def read_task(name: str, text: str) -> dict[str, Any]:
    """The definition of one task file; raises DefinitionError naming the file, line or field."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DefinitionError(f"{name}: not valid TOML: {error}") from None
    except RecursionError:  # arrays nested hundreds deep: the studio's live check was a server error
        raise DefinitionError(f"{name}: not valid TOML: nested too deep") from None
    unknown = set(raw) - _TASK_KEYS
    if unknown:
        raise DefinitionError(
            f"{name}: unknown keys {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(_TASK_KEYS))})"
        )
    actions = raw.get("actions")
    if not isinstance(actions, list) or not actions:
        raise DefinitionError(f"{name}: add at least one [[actions]] table")
    converted = []
    for number, action in enumerate(actions):
        if not isinstance(action, dict):  # `actions = [1, 2]` was a server error
            raise DefinitionError(f"{name}: actions[{number}] must be a table ([[actions]] with do and minutes)")
        extra = set(action) - _ACTION_KEYS
        if extra:
            raise DefinitionError(
                f"{name}: actions[{number}] has unknown keys {', '.join(sorted(extra))} "
                f"(allowed: {', '.join(sorted(_ACTION_KEYS))})"
            )
        converted.append(
            {
                "name": action.get("do"),
                "minutes": action.get("minutes"),
                "background": action.get("background", False),
                "requires": action.get("after", []),
            }
        )
    title = raw.get("title") or name
    definition = {
        "format": FORMAT,
        "title": title,
        "tasks": [
            {
                "name": name,
                "title": title,
                "goal": raw.get("goal", ""),
                "appliances": raw.get("appliances", []),
                "actions": converted,
            }
        ],
    }
    try:
        validate(definition)
        check_new(definition)
    except DefinitionError as error:
        raise DefinitionError(f"{name}: {error}".replace(f"task '{name}'.", "")) from None
    return definition
