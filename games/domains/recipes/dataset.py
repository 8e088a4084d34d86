"""Reading the Recipe2Plan data format (``cooking.json``) into scenario definitions.

Each instance is two recipes; its name is the two recipe names joined with ``_`` (Cobbler_Pancakes).
A recipe's steps carry ``time`` ("N min", "N sec" or "N hour"), ``prequisites`` (sic),
``time_constraint`` ({"k": "N min"}), ``interrupt`` and ``parallel`` (1 = autonomous) and
``physical`` (appliance require/update). Pure: callers read the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.domains.recipes.kitchen import DEFAULT_APPLIANCES, DefinitionError, load_kitchen, switch
from games.domains.recipes.timefmt import TimeFormatError, parse_amount
from games.engine.fields import unknown_field


def _whole(value: Any, label: str, field: str) -> int:
    """A step number from the file: a whole number (or its digits), else an error naming the field."""
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().lstrip("-").isdigit():
        raise DefinitionError(f"{label}: field '{field}': {value!r} is not a step number")
    return int(value)


def _steps(value: Any, label: str, field: str) -> list[int]:
    if not isinstance(value, list):
        raise DefinitionError(f"{label}: field '{field}': expected a list of step numbers")
    steps: list[int] = []
    seen: set[int] = set()
    for p in value:
        step = _whole(p, label, field)
        if step in seen:  # stored as written: 200,000 repeats of one step were saved
            raise DefinitionError(f"{label}: field '{field}': step {step} is listed twice")
        seen.add(step)
        steps.append(step)
    return steps


def _physical(value: Any, label: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(spec, Mapping | None) for spec in value.values()):
        raise DefinitionError(f"{label}: field 'physical': expected {{appliance: {{require, update}}}}")
    try:
        return {
            str(appliance): {
                "require": dict((spec or {}).get("require") or {}),
                "update": dict((spec or {}).get("update") or {}),
            }
            for appliance, spec in value.items()
        }
    except (TypeError, ValueError):
        raise DefinitionError(f"{label}: field 'physical': require and update are objects") from None


def convert_recipe(raw: Mapping[str, Any], where: str = "recipe") -> dict[str, Any]:
    """One Recipe2Plan recipe -> ``{"name", "steps": [...]}`` in our definition format."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("recipe"), str) or not isinstance(raw.get("steps"), list):
        raise DefinitionError(f"{where}: expected an object with 'recipe' (a name) and 'steps' (a list)")
    name = raw["recipe"].strip()
    steps = []
    for position, step in enumerate(raw["steps"]):
        label = f"{where} ({name}) step {position}"
        if not isinstance(step, Mapping):
            raise DefinitionError(f"{label}: expected an object")
        try:
            duration = parse_amount(step["time"])
            constraints = {
                str(_whole(k, label, "time_constraint")): parse_amount(v)
                for k, v in dict(step.get("time_constraint") or {}).items()
            }
        except KeyError as missing:
            raise DefinitionError(f"{label}: missing field {missing}") from None
        except (TimeFormatError, ValueError, TypeError) as error:
            raise DefinitionError(f"{label}: {error}") from None
        steps.append(
            {
                "index": _whole(step.get("step", position), label, "step"),
                "text": str(step.get("text", "")).strip(),
                "duration": duration,
                "prerequisites": _steps(step.get("prequisites", step.get("prerequisites")) or [], label, "prequisites"),
                "time_constraints": constraints,
                "interruptible": bool(step.get("interrupt", 0)),
                "autonomous": bool(step.get("parallel", 0)),
                "physical": _physical(step.get("physical") or {}, label),
            }
        )
    return {"name": name, "steps": steps}


def instance_name(recipes: Sequence[Mapping[str, Any]]) -> str:
    return "_".join(str(recipe["name"]) for recipe in recipes)


def instance_definition(recipes: list[dict[str, Any]]) -> dict[str, Any]:
    definition = {"recipes": recipes, "appliances": {k: dict(v) for k, v in DEFAULT_APPLIANCES.items()}}
    load_kitchen(definition)  # validates: raises DefinitionError naming the field
    return definition


def read_instances(data: Any) -> dict[str, dict[str, Any]]:
    """The whole cooking.json list -> {instance name: definition}, in file order."""
    if not isinstance(data, list):
        raise DefinitionError("cooking.json must be a list of instances (each a list of two recipes)")
    instances: dict[str, dict[str, Any]] = {}
    for number, raw in enumerate(data):
        if not isinstance(raw, list) or not raw:
            raise DefinitionError(f"instance {number}: expected a list of recipes")
        recipes = [convert_recipe(recipe, f"instance {number} recipe {i}") for i, recipe in enumerate(raw)]
        name = instance_name(recipes)
        try:
            instances[name] = instance_definition(recipes)
        except DefinitionError as error:
            raise DefinitionError(f"instance {number} ({name}): {error}") from None
    return instances


# What an authored recipe and its steps may say (docs/scenarios.md): a misspelt field
# ("interruptable") is refused, not read as the field left out.
AUTHORED_RECIPE_FIELDS = ("name", "title", "description", "steps")
AUTHORED_STEP_FIELDS = ("text", "time", "prerequisites", "time_constraints", "physical", "autonomous", "interruptible")


def _known_fields(raw: Mapping[str, Any], known: tuple[str, ...], label: str) -> None:
    if unknown := unknown_field(raw, known):
        raise DefinitionError(f"{label}: unknown field '{unknown[0]}'; {unknown[1]}")


def convert_authored(raw: Mapping[str, Any], where: str = "recipe") -> dict[str, Any]:
    """One of our authored recipes (games/content/recipes/<Name>.json, docs/scenarios.md) -> a
    definition recipe. Steps are numbered by position; times are "N min" / "N sec" / "N hour"."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str) or not isinstance(raw.get("steps"), list):
        raise DefinitionError(f"{where}: expected an object with 'name' and a 'steps' list")
    _known_fields(raw, AUTHORED_RECIPE_FIELDS, f"{where} ({raw['name']})")
    steps = []
    for position, step in enumerate(raw["steps"]):
        label = f"{where} ({raw['name']}) step {position}"
        if not isinstance(step, Mapping):
            raise DefinitionError(f"{label}: expected an object")
        _known_fields(step, AUTHORED_STEP_FIELDS, label)
        if "time" not in step:
            raise DefinitionError(f"{label}: missing field 'time'")
        try:
            duration = parse_amount(step["time"])
        except (TimeFormatError, ValueError, TypeError) as error:
            raise DefinitionError(f"{label}: time: {error}") from None
        try:
            constraints = {
                str(_whole(k, label, "time_constraints")): parse_amount(v)
                for k, v in dict(step.get("time_constraints") or {}).items()
            }
        except (TimeFormatError, ValueError, TypeError) as error:
            raise DefinitionError(f"{label}: time_constraints: {error}") from None
        steps.append(
            {
                "index": position,
                "text": str(step.get("text", "")).strip(),
                "duration": duration,
                "prerequisites": _steps(step.get("prerequisites") or [], label, "prerequisites"),
                "time_constraints": constraints,
                "interruptible": switch(step.get("interruptible", False), f"{label}: interruptible"),
                "autonomous": switch(step.get("autonomous", False), f"{label}: autonomous"),
                "physical": _physical(step.get("physical") or {}, label),
            }
        )
    return {"name": raw["name"].strip(), "steps": steps}
