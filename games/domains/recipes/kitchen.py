"""The immutable part of a recipes game: the recipes, their steps and the appliances.

A scenario definition (JSON, stored in ``games.Scenario.definition``) looks like::

    {"recipes": [{"name": "Cobbler", "steps": [
        {"index": 0, "text": "Preheat the oven to 350 degrees.", "duration": 600,
         "prerequisites": [], "time_constraints": {}, "interruptible": false, "autonomous": true,
         "physical": {"oven": {"require": {}, "update": {"temperature": 350}}}},
        ...]}, ...],
     "appliances": {"oven": {"temperature": null}, "microwave": {}, "stove": {}},
     "reference_plans": {"with_constraints": [[step, recipe, seconds, start], ...],
                         "without_constraints": [...]}}

Durations and time-constraint windows are in seconds (``{"2": 120}``: start at most 2 minutes after
step 2 finished). ``appliances`` and ``reference_plans`` are optional.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from typing import Any

DEFAULT_APPLIANCES: dict[str, dict[str, Any]] = {"oven": {"temperature": None}, "microwave": {}, "stove": {}}

Props = tuple[tuple[str, Any], ...]


class DefinitionError(ValueError):
    """A scenario definition the rules cannot play; the message names the field at fault."""


@dataclass(frozen=True, slots=True)
class ApplianceUse:
    appliance: str
    require: Props = ()
    update: Props = ()

    def to_json(self) -> dict[str, Any]:
        return {"require": dict(self.require), "update": dict(self.update)}


@dataclass(frozen=True, slots=True)
class StepSpec:
    recipe: int
    index: int
    text: str
    duration: int
    prerequisites: tuple[int, ...]
    #: (source step k, seconds): every chunk starts at most that long after k finished.
    time_constraints: tuple[tuple[int, int], ...]
    interruptible: bool
    autonomous: bool
    uses: tuple[ApplianceUse, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "duration": self.duration,
            "prerequisites": list(self.prerequisites),
            "time_constraints": {str(k): seconds for k, seconds in self.time_constraints},
            "interruptible": self.interruptible,
            "autonomous": self.autonomous,
            "physical": {use.appliance: use.to_json() for use in self.uses},
        }


@dataclass(frozen=True, slots=True)
class RecipeSpec:
    name: str
    steps: tuple[StepSpec, ...]


@dataclass(frozen=True, slots=True)
class Kitchen:
    recipes: tuple[RecipeSpec, ...]
    appliances: tuple[tuple[str, Props], ...]
    reference_plans: tuple[tuple[str, tuple[tuple[int, str, int, int], ...]], ...] = ()
    # Answers derived from this kitchen alone (e.g. the reference plan's efficiency over its first n
    # actions), worked out once per process: not part of the value, never compared or serialised.
    derived: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False, hash=False)

    def recipe_index(self, name: str) -> int | None:
        """The number of the recipe called ``name`` (any case, spaces around ignored), or None."""
        names: dict[str, int] | None = self.derived.get("names")
        if names is None:
            names = {recipe.name: number for number, recipe in enumerate(self.recipes)}
            names.update({recipe.name.casefold(): number for number, recipe in enumerate(self.recipes)})
            self.derived["names"] = names
        found = names.get(name)
        return found if found is not None else names.get(name.strip().casefold())

    def memo[T](self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()``, worked out once per kitchen and kept under ``key`` in ``derived`` (for
        answers that depend on the kitchen alone and are asked again and again)."""
        derived = self.derived
        if key in derived:
            found: T = derived[key]
            return found
        value = derived[key] = build()
        return value

    @property
    def constrained(self) -> tuple[StepSpec, ...]:
        """The steps with a time constraint (what ``next_spoil`` scans), worked out once."""
        return self.memo("constrained", lambda: tuple(s for r in self.recipes for s in r.steps if s.time_constraints))

    @property
    def step_count(self) -> int:
        """How many steps all the recipes have together."""
        found = self.derived.get("step_count")
        if found is None:
            found = self.derived["step_count"] = sum(len(recipe.steps) for recipe in self.recipes)
        return int(found)

    def step(self, recipe: int, index: int) -> StepSpec:
        return self.recipes[recipe].steps[index]

    def all_steps(self) -> list[StepSpec]:
        return [step for recipe in self.recipes for step in recipe.steps]

    def reference_plan(self, time_constraints: bool) -> list[tuple[int, str, int, int]] | None:
        key = "with_constraints" if time_constraints else "without_constraints"
        for name, plan in self.reference_plans:
            if name == key:
                return list(plan)
        return None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "recipes": [
                {"name": recipe.name, "steps": [step.to_json() for step in recipe.steps]} for recipe in self.recipes
            ],
            "appliances": {name: dict(props) for name, props in self.appliances},
        }
        if self.reference_plans:
            data["reference_plans"] = {name: [list(item) for item in plan] for name, plan in self.reference_plans}
        return data


def _props(raw: Any, where: str) -> Props:
    if raw in (None, ""):
        return ()
    if not isinstance(raw, Mapping):
        raise DefinitionError(f"{where} must be an object like {{'temperature': 350}}")
    return tuple(sorted((str(key), value) for key, value in raw.items()))


def _int(raw: Any, where: str, *, minimum: int = 0) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or int(raw) != raw or raw < minimum:
        raise DefinitionError(f"{where} must be a whole number of at least {minimum}, not {raw!r}")
    return int(raw)


def _step_key(raw: Any, where: str) -> int:
    """A time constraint's key: the number of the step it follows ("2"; JSON keys are texts)."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdigit():
        return int(raw)
    raise DefinitionError(f"{where}: a time constraint is keyed by a step number, not {raw!r}")


def switch(raw: Any, where: str, *, numbers: bool = False) -> bool:
    """true or false, and with ``numbers`` 1 and 0 (as the published data writes them); a text such
    as "no" would read as true, so it is refused."""
    if isinstance(raw, bool) or (numbers and not isinstance(raw, str) and raw in (0, 1)):
        return bool(raw)
    raise DefinitionError(f"{where} must be true or false, not {json.dumps(raw)}")


def load_kitchen(definition: Mapping[str, Any]) -> Kitchen:
    """Validate and freeze a scenario definition (raises DefinitionError naming the bad field)."""
    if not isinstance(definition, Mapping):
        raise DefinitionError("the definition must be a JSON object with a 'recipes' list")
    raw_recipes = definition.get("recipes")
    if not isinstance(raw_recipes, list) or not raw_recipes:
        raise DefinitionError("the definition needs a non-empty 'recipes' list")
    appliances_raw = definition.get("appliances") or DEFAULT_APPLIANCES
    if not isinstance(appliances_raw, Mapping):
        raise DefinitionError("'appliances' must map appliance names to their initial state")
    appliances = tuple(
        sorted((str(name), _props(props, f"appliances.{name}")) for name, props in appliances_raw.items())
    )
    appliance_names = {name for name, _ in appliances}
    recipes: list[RecipeSpec] = []
    names: set[str] = set()
    for number, raw in enumerate(raw_recipes):
        where = f"recipes[{number}]"
        name = str(raw.get("name", "")).strip() if isinstance(raw, Mapping) else ""
        if not name:
            raise DefinitionError(f"{where} needs a 'name'")
        if name.casefold() in names:
            raise DefinitionError(f"{where}: recipe {name!r} appears twice; give each recipe of a game its own name")
        names.add(name.casefold())
        raw_steps = raw.get("steps")
        if not isinstance(raw_steps, list) or not raw_steps:
            raise DefinitionError(f"{where} ({name}) needs a non-empty 'steps' list")
        steps = [
            _load_step(number, name, position, raw_step, appliance_names) for position, raw_step in enumerate(raw_steps)
        ]
        count = len(steps)
        for step in steps:
            for prerequisite in step.prerequisites:
                if not 0 <= prerequisite < count or prerequisite == step.index:
                    raise DefinitionError(
                        f"{name} step {step.index}: prerequisite {prerequisite} is not another step of {name}"
                    )
            for source, _ in step.time_constraints:
                if not 0 <= source < count or source == step.index:
                    raise DefinitionError(
                        f"{name} step {step.index}: time constraint on {source}, which is not another step"
                    )
        _check_acyclic(name, steps)
        recipes.append(RecipeSpec(name=name, steps=tuple(steps)))
    plans: list[tuple[str, tuple[tuple[int, str, int, int], ...]]] = []
    raw_plans = definition.get("reference_plans") or {}
    if isinstance(raw_plans, Mapping):
        for key in sorted(raw_plans):
            plan = raw_plans[key]
            if isinstance(plan, list):
                try:
                    plans.append((str(key), tuple((int(a), str(b), int(c), int(d)) for a, b, c, d in plan)))
                except (TypeError, ValueError, OverflowError):  # [["x"]] or an infinite time was a server error
                    raise DefinitionError(
                        f"reference_plans {key}: each entry is [step, recipe, duration, start] in whole seconds"
                    ) from None
    return Kitchen(recipes=tuple(recipes), appliances=appliances, reference_plans=tuple(plans))


def _load_step(recipe: int, name: str, position: int, raw: Any, appliances: set[str]) -> StepSpec:
    where = f"{name} step {position}"
    if not isinstance(raw, Mapping):
        raise DefinitionError(f"{where} must be an object")
    index = _int(raw.get("index", position), f"{where}: index")
    if index != position:
        raise DefinitionError(f"{where}: steps must be numbered 0, 1, 2, ... in order (found {index})")
    uses = []
    physical = raw.get("physical") or {}
    if not isinstance(physical, Mapping):
        raise DefinitionError(f"{where}: 'physical' must map appliance names to require/update")
    for appliance in sorted(physical):
        if appliance not in appliances:
            raise DefinitionError(
                f"{where} uses an unknown appliance {appliance!r}; known: {', '.join(sorted(appliances))}"
            )
        spec = physical[appliance] or {}
        uses.append(
            ApplianceUse(
                appliance=appliance,
                require=_props(spec.get("require"), f"{where}: {appliance}.require"),
                update=_props(spec.get("update"), f"{where}: {appliance}.update"),
            )
        )
    constraints = raw.get("time_constraints") or {}
    if not isinstance(constraints, Mapping):
        raise DefinitionError(f"{where}: 'time_constraints' must map a step number to seconds")
    prerequisites = raw.get("prerequisites") or []
    if not isinstance(prerequisites, list):
        raise DefinitionError(f"{where}: 'prerequisites' must be a list of step numbers")
    return StepSpec(
        recipe=recipe,
        index=index,
        text=str(raw.get("text", "")),
        duration=_int(raw.get("duration"), f"{where}: duration", minimum=1),
        prerequisites=tuple(sorted({_int(p, f"{where}: prerequisite") for p in prerequisites})),
        time_constraints=tuple(
            sorted(
                (_int(_step_key(k, where), f"{where}: time constraint step"), _int(v, f"{where}: time constraint"))
                for k, v in constraints.items()
            )
        ),
        interruptible=switch(raw.get("interruptible", False), f"{where}: interruptible", numbers=True),
        autonomous=switch(raw.get("autonomous", False), f"{where}: autonomous", numbers=True),
        uses=tuple(uses),
    )


def _check_acyclic(name: str, steps: list[StepSpec]) -> None:
    # graphlib, as the tasks' check: no recursion, so a long chain of steps cannot overflow the stack
    try:
        TopologicalSorter({step.index: step.prerequisites for step in steps}).prepare()
    except CycleError as error:
        path = list(reversed(error.args[1]))  # each step, then the one it waits for
        message = f"{name}: steps {path} depend on each other in a circle; remove one prerequisite"
        raise DefinitionError(message) from None
