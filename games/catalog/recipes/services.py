"""Storing recipes and building the scenarios that play them (the one place that does either).

Used by the Recipe2Plan importer, the bundled-content loader and the annotations app (gold labels
become a new recipe version, then ``rebuild_scenarios`` makes them playable).

Steps passed to ``save_recipe_version`` use the RecipeStep field names: ``index`` (optional, the
position), ``text``, ``duration_seconds``, ``prerequisites`` (step indices), ``time_constraints``
(``{"k": minutes}``), ``interruptible``, ``autonomous``, ``physical``
(``{"oven": {"require": {...}, "update": {...}}}``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.db import transaction

from games.catalog.recipes.models import Recipe, RecipeStep
from games.domains.recipes.dataset import instance_name
from games.domains.recipes.kitchen import DEFAULT_APPLIANCES, DefinitionError, load_kitchen
from games.models import Scenario
from games.scenarios import save_scenario

DOMAIN = "recipes"


class RecipeProblem(ValueError):
    """Recipe steps that cannot be stored; the message names the step and field at fault."""


def _minutes_to_seconds(value: Any) -> int:
    return round(float(value) * 60)


def _seconds_to_minutes(value: int) -> float | int:
    minutes = value / 60
    return int(minutes) if minutes.is_integer() else round(minutes, 4)


def recipe_definition(recipe: Recipe) -> dict[str, Any]:
    """A stored recipe version as the rule set reads it (``{"name", "steps": [...]}``, seconds)."""
    return {
        "name": recipe.name,
        "steps": [
            {
                "index": step.index,
                "text": step.text,
                "duration": step.duration_seconds,
                "prerequisites": sorted(int(p) for p in step.prerequisites or []),
                "time_constraints": {str(k): _minutes_to_seconds(v) for k, v in (step.time_constraints or {}).items()},
                "interruptible": step.interruptible,
                "autonomous": step.autonomous,
                "physical": {
                    name: {"require": dict(spec.get("require") or {}), "update": dict(spec.get("update") or {})}
                    for name, spec in (step.physical or {}).items()
                },
            }
            for step in recipe.steps.order_by("index")
        ],
    }


def steps_from_definition(recipe: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A definition recipe (seconds) -> RecipeStep field values (constraints in minutes)."""
    return [
        {
            "index": step["index"],
            "text": step["text"],
            "duration_seconds": step["duration"],
            "prerequisites": list(step["prerequisites"]),
            "time_constraints": {k: _seconds_to_minutes(v) for k, v in step["time_constraints"].items()},
            "interruptible": step["interruptible"],
            "autonomous": step["autonomous"],
            "physical": step["physical"],
        }
        for step in recipe["steps"]
    ]


def _normalise(name: str, steps: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    normalised: list[dict[str, Any]] = []
    for position, raw in enumerate(steps):
        where = f"{name} step {position}"
        if not isinstance(raw, Mapping):
            raise RecipeProblem(f"{where}: expected an object with the RecipeStep fields")
        try:
            duration = int(raw["duration_seconds"])
        except (KeyError, TypeError, ValueError):
            raise RecipeProblem(f"{where}: give 'duration_seconds' as a whole number of seconds") from None
        try:
            constraints = {str(int(k)): float(v) for k, v in (raw.get("time_constraints") or {}).items()}
        except (TypeError, ValueError):
            raise RecipeProblem(f"{where}: 'time_constraints' must map a step number to minutes") from None
        normalised.append(
            {
                "index": int(raw.get("index", position)),
                "text": str(raw.get("text", "")).strip(),
                "duration_seconds": duration,
                "prerequisites": sorted({int(p) for p in raw.get("prerequisites") or []}),
                "time_constraints": {k: (int(v) if v.is_integer() else v) for k, v in sorted(constraints.items())},
                "interruptible": bool(raw.get("interruptible", False)),
                "autonomous": bool(raw.get("autonomous", False)),
                "physical": {
                    str(a): {
                        "require": dict((s or {}).get("require") or {}),
                        "update": dict((s or {}).get("update") or {}),
                    }
                    for a, s in (raw.get("physical") or {}).items()
                },
            }
        )
    definition = {
        "recipes": [
            {
                "name": name,
                "steps": [
                    {
                        "index": s["index"],
                        "text": s["text"],
                        "duration": s["duration_seconds"],
                        "prerequisites": s["prerequisites"],
                        "time_constraints": {k: _minutes_to_seconds(v) for k, v in s["time_constraints"].items()},
                        "interruptible": s["interruptible"],
                        "autonomous": s["autonomous"],
                        "physical": s["physical"],
                    }
                    for s in normalised
                ],
            }
        ]
    }
    try:
        load_kitchen(definition)
    except DefinitionError as error:
        raise RecipeProblem(str(error)) from None
    return normalised


def _stored_steps(recipe: Recipe) -> list[dict[str, Any]]:
    return _normalise(
        recipe.name,
        [
            {
                "index": s.index,
                "text": s.text,
                "duration_seconds": s.duration_seconds,
                "prerequisites": s.prerequisites,
                "time_constraints": s.time_constraints,
                "interruptible": s.interruptible,
                "autonomous": s.autonomous,
                "physical": s.physical,
            }
            for s in recipe.steps.order_by("index")
        ],
    )


def current_recipe(name: str) -> Recipe:
    try:
        return Recipe.objects.get(name=name, is_current=True)
    except Recipe.DoesNotExist:
        raise Recipe.DoesNotExist(f"no recipe named {name!r}; import Recipe2Plan or load the bundled content") from None


@transaction.atomic
def save_recipe_version_changed(name: str, steps: Iterable[Mapping[str, Any]], source: str) -> tuple[Recipe, bool]:
    """Like ``save_recipe_version``, also saying whether a new version was made."""
    name = name.strip()
    if not name:
        raise RecipeProblem("a recipe needs a name")
    normalised = _normalise(name, steps)
    current = Recipe.objects.select_for_update().filter(name=name, is_current=True).first()
    if current is not None and _stored_steps(current) == normalised:
        return current, False
    version = 1
    if current is not None:
        version = (
            Recipe.objects.filter(name=name).order_by("-version").values_list("version", flat=True).first() or 0
        ) + 1
        Recipe.objects.filter(pk=current.pk).update(is_current=False)
    recipe = Recipe.objects.create(name=name, version=version, is_current=True, source=source)
    RecipeStep.objects.bulk_create(RecipeStep(recipe=recipe, **step) for step in normalised)
    return recipe, True


def save_recipe_version(name: str, steps: Iterable[Mapping[str, Any]], source: str) -> Recipe:
    """Store ``steps`` as the current version of recipe ``name`` if anything changed (the old
    version stays, and scenarios built on it keep it); return the current version."""
    return save_recipe_version_changed(name, steps, source)[0]


def reference_plans(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The heuristic planner's plans with and without time constraints (R-Efficiency's reference)."""
    try:
        from games.planners.recipes_heuristic import plan_items
    except ImportError:  # the planner lands after the rules; scenarios gain plans on the next import
        return {}
    plans: dict[str, Any] = {}
    for key, constraints in (("with_constraints", True), ("without_constraints", False)):
        items = plan_items(definition, time_constraints=constraints)
        if items is not None:
            plans[key] = [list(item) for item in items]
    return plans


def scenario_definition(recipes: list[Recipe]) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "recipes": [recipe_definition(recipe) for recipe in recipes],
        "appliances": {name: dict(props) for name, props in DEFAULT_APPLIANCES.items()},
        "recipe_versions": {recipe.name: recipe.version for recipe in recipes},
    }
    plans = reference_plans(definition)
    if plans:
        definition["reference_plans"] = plans
    return definition


def build_scenario(
    slug: str, recipe_names: list[str], *, title: str, source: str, description: str = ""
) -> tuple[Scenario, bool]:
    """(Re)build the scenario ``slug`` from the current versions of its recipes."""
    recipes = [current_recipe(name) for name in recipe_names]
    return save_scenario(
        domain=DOMAIN,
        slug=slug,
        title=title,
        source=source,
        description=description,
        definition=scenario_definition(recipes),
    )


def scenarios_using(recipe_name: str) -> list[Scenario]:
    """The current scenarios built from the catalogue's ``recipe_name`` (``build_scenario`` notes
    the versions it used). A studio or generated scenario with a recipe of the same name is its
    author's own text: rebuilding it from the catalogue would replace their edits."""
    return [
        scenario
        for scenario in Scenario.objects.filter(domain=DOMAIN, is_current=True).order_by("slug")
        if recipe_name in ((scenario.definition or {}).get("recipe_versions") or {})
    ]


def rebuild_scenarios(recipe_name: str, log: Callable[[str], None] | None = None) -> list[Scenario]:
    """Make the current version of ``recipe_name`` playable: every current scenario that uses the
    recipe gets a new version built from the current recipe versions. Returns the changed ones."""
    changed = []
    for scenario in scenarios_using(recipe_name):
        names = [r["name"] for r in scenario.definition["recipes"]]
        rebuilt, did_change = build_scenario(
            scenario.slug, names, title=scenario.title, source=scenario.source, description=scenario.description
        )
        if did_change:
            changed.append(rebuilt)
            if log:
                log(f"{rebuilt.slug}: now version {rebuilt.version}")
    return changed


def instance_slug(source: str, recipe_names: list[str]) -> str:
    return f"{source}/{instance_name([{'name': n} for n in recipe_names])}"


@transaction.atomic
def import_recipe(name: str, steps: Iterable[Mapping[str, Any]], source: str) -> tuple[Recipe, str]:
    """Store an imported or bundled recipe; returns (current recipe, "created"|"updated"|"unchanged"|"kept").

    When annotators' gold labels made a newer version ("kept"), re-importing the same source data
    leaves that version current: nothing an annotator did is undone by an import.
    """
    current = Recipe.objects.filter(name=name, is_current=True).first()
    if current is not None and current.source != source:
        latest = Recipe.objects.filter(name=name, source=source).order_by("-version").first()
        if latest is not None and _stored_steps(latest) == _normalise(name, steps):
            return current, "kept"
    recipe, changed = save_recipe_version_changed(name, steps, source)
    if not changed:
        return recipe, "unchanged"
    return recipe, "created" if recipe.version == 1 else "updated"


@transaction.atomic
def catalogue_recipes_of(scenario: Scenario) -> list[Recipe]:
    """The catalogue recipes a recipes scenario's steps are labelled as (annotation projects label
    catalogue recipes): a recipe not in the catalogue yet is added (source ``studio:<slug>``), one
    already there with the same steps is reused, and a catalogue recipe the scenario was built from
    (``recipe_versions``) is labelled in its current version. Another recipe of the same name is
    refused, naming it; nothing is added then."""
    if scenario.domain != DOMAIN:
        raise RecipeProblem(f"{scenario.slug} is not a recipes scenario")
    built_from = (scenario.definition or {}).get("recipe_versions") or {}
    found: list[Recipe] = []
    for recipe in scenario.definition.get("recipes", []):
        name = str(recipe.get("name", "")).strip()
        steps = steps_from_definition(recipe)
        current = Recipe.objects.filter(name=name, is_current=True).first()
        if current is None:
            found.append(save_recipe_version(name, steps, source=f"studio:{scenario.slug}"[:100]))
        elif name in built_from or _stored_steps(current) == _normalise(name, steps):
            found.append(current)
        else:
            raise RecipeProblem(
                f"The catalogue has another recipe called “{name}” (from {current.source}, v{current.version}) "
                f"with other steps: give yours another name in the studio, save it and try again."
            )
    return found
