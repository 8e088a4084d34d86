"""Generated recipe pairs (Recipe2Plan format) and their certified optimum.

Each recipe is ``steps`` steps in whole minutes. Step 0 starts the recipe; every later step needs
one earlier step (a recent one, so recipes stay mostly sequential) and, sometimes, a second one.

- a share ``autonomous`` of the steps run by themselves (5-30 min); the rest keep the cook busy
  (1-8 min), and a share ``interruptible`` of those may be done in chunks;
- with probability ``contention`` an autonomous step uses an appliance (oven, stove or
  microwave, one of each in the kitchen; the oven at 350 or 425 degrees), so the recipes compete;
- with probability ``constraints`` a step that needs exactly one step gets a time window after it
  (at most one window per source step, so a plan always exists): ``tightness`` 0 gives 15 minutes,
  1 gives 1 minute.

Optimum: games.planners.recipes_optimal (CP-SAT, time constraints on), whose horizon and hint
come from the Recipe2Plan heuristic (games.planners.recipes_heuristic); makespans in seconds.
"""

from __future__ import annotations

import random
from typing import Any

from games.domains.recipes.kitchen import DEFAULT_APPLIANCES, load_kitchen
from games.domains.recipes.text import recipe_title
from games.engine.durations import describe_amount
from games.generators.knobs import Knob
from games.planners import budget, recipes_heuristic, recipes_optimal

# What ``optimal_makespan`` measures, for the generator page.
OBJECTIVE = "the makespan in seconds (the CP-SAT optimum)"
# What an instance's stats.actions counts (the generator page's Actions column).
ACTIONS = "the steps of all its recipes"

KNOBS = (
    Knob("steps", 8, 3, 30, "steps per recipe"),
    Knob("recipes", 2, 1, 3, "recipes cooked at once"),
    Knob("autonomous", 0.4, 0.0, 1.0, "share of steps that run by themselves"),
    Knob("interruptible", 0.3, 0.0, 1.0, "share of the cook's steps that may be done in chunks"),
    Knob("contention", 0.5, 0.0, 1.0, "chance an autonomous step needs the oven, stove or microwave"),
    Knob("constraints", 0.3, 0.0, 1.0, "chance a step must start soon after the step it follows"),
    Knob("tightness", 0.5, 0.0, 1.0, "how short the windows are (0: 15 min, 1: 1 min)"),
)

INGREDIENTS = [
    "onions",
    "carrots",
    "leeks",
    "potatoes",
    "beans",
    "lentils",
    "rice",
    "pasta",
    "dough",
    "batter",
    "sauce",
    "stock",
    "apples",
    "pears",
    "plums",
    "berries",
    "cream",
    "butter",
    "cheese",
    "eggs",
    "flour",
    "sugar",
    "spinach",
    "mushrooms",
    "peppers",
    "tomatoes",
    "garlic",
    "herbs",
    "nuts",
]
HANDS = ("Chop", "Stir", "Whisk", "Slice", "Knead", "Mix", "Season", "Fold", "Grate", "Peel", "Mash", "Spread")
BY_ITSELF = ("Soak", "Chill", "Rest", "Marinate", "Cool", "Rise")
APPLIANCE_WORK = {
    "oven": "Bake the {thing} at {temperature} degrees.",
    "stove": "Simmer the {thing} on the stove.",
    "microwave": "Warm the {thing} in the microwave.",
}
NAMES = ("Stew", "Pie", "Salad", "Soup", "Bake", "Curry", "Tart", "Risotto", "Gratin", "Crumble")


def build(rng: random.Random, knobs: dict[str, Any], index: int) -> dict[str, Any]:
    names = rng.sample(NAMES, knobs["recipes"])
    recipes = [_recipe(rng, knobs, f"{name}-{index + 1}") for name in names]
    definition = {"recipes": recipes, "appliances": {k: dict(v) for k, v in DEFAULT_APPLIANCES.items()}}
    load_kitchen(definition)  # a generator bug must not produce an unplayable scenario
    return definition


def title(definition: dict[str, Any]) -> str:
    """How a generated pair is listed (its recipes' names as the game titles them)."""
    steps = sum(len(recipe["steps"]) for recipe in definition["recipes"])
    return f"Generated: {' + '.join(recipe_title(r['name']) for r in definition['recipes'])} ({steps} steps)"


def _recipe(rng: random.Random, knobs: dict[str, Any], name: str) -> dict[str, Any]:
    count = knobs["steps"]
    steps: list[dict[str, Any]] = []
    windowed_sources: set[int] = set()
    for index in range(count):
        thing = rng.choice(INGREDIENTS)
        autonomous = index > 0 and rng.random() < knobs["autonomous"]
        physical: dict[str, Any] = {}
        if autonomous:
            minutes = rng.randint(5, 30)
            if rng.random() < knobs["contention"]:
                appliance = rng.choice(("oven", "stove", "microwave"))
                temperature = rng.choice((350, 425))
                text = APPLIANCE_WORK[appliance].format(thing=thing, temperature=temperature)
                update = {"temperature": temperature} if appliance == "oven" else {}
                physical = {appliance: {"require": {}, "update": update}}
            else:
                text = f"{rng.choice(BY_ITSELF)} the {thing}."
        else:
            minutes = rng.randint(1, 8)
            text = f"{rng.choice(HANDS)} the {thing}."
        prerequisites: list[int] = []
        if index:
            prerequisites.append(rng.randrange(max(0, index - 3), index))
            if index > 2 and rng.random() < 0.3:
                second = rng.randrange(index)
                if second not in prerequisites:
                    prerequisites.append(second)
        constraints: dict[str, int] = {}
        source = prerequisites[0] if len(prerequisites) == 1 else None
        if source is not None and source not in windowed_sources and rng.random() < knobs["constraints"]:
            windowed_sources.add(source)
            constraints[str(source)] = 60 * round(15 - 14 * knobs["tightness"])
        interruptible = not autonomous and minutes > 1 and rng.random() < knobs["interruptible"]
        steps.append(
            {
                "index": index,
                "text": text,
                "duration": 60 * minutes,
                "prerequisites": sorted(prerequisites),
                "time_constraints": constraints,
                "interruptible": interruptible,
                "autonomous": autonomous,
                "physical": physical,
            }
        )
    return {"name": name, "steps": steps}


def basis(knobs: dict[str, Any]) -> dict[str, Any]:
    """What the optimum holds for (``family.certificate``): the rules with time constraints on."""
    return {"time_constraints": True}


def show(value: float) -> str:
    """A makespan in seconds as a duration in words ("4 h 3 min", "46 min 30 s"): "243:00" beside
    the tasks' "50 minutes" read as hours and minutes."""
    return describe_amount(round(value))


def achieved(item: dict[str, Any], metrics: dict[str, Any], basis: dict[str, Any]) -> float | None:
    """An episode's makespan in seconds, or None when it is not comparable: not a success (a step
    left undone or a window missed), or played with time constraints set otherwise."""
    if not metrics.get("success") or bool(metrics.get("time_constraints")) != bool(basis.get("time_constraints")):
        return None
    value = metrics.get("makespan_seconds")
    return float(value) if isinstance(value, int | float) else None


def evaluate(definition: dict[str, Any], knobs: dict[str, Any], max_seconds: float) -> dict[str, Any]:
    heuristic = recipes_heuristic.plan(definition, time_constraints=True)
    # Stopped by deterministic work, so the optimum, bound and proof are the same on every machine.
    best = recipes_optimal.solve(
        definition,
        time_constraints=True,
        time_limit=budget.GUARD * max_seconds,
        work_limit=budget.work_for(max_seconds),
        heuristic=heuristic,
    )
    steps = [step for recipe in definition["recipes"] for step in recipe["steps"]]
    total = sum(step["duration"] for step in steps)
    cook = [step for step in steps if not step["autonomous"]]
    stats = {
        "actions": len(steps),
        "recipes": len(definition["recipes"]),
        "total_seconds": total,
        "parallelism": round(total / best.makespan, 4) if best.makespan else None,
        "autonomous_share": round(sum(s["autonomous"] for s in steps) / len(steps), 4),
        "interruptible_share": round(sum(s["interruptible"] for s in cook) / len(cook), 4) if cook else 0.0,
        "appliance_uses": sum(1 for s in steps if s["physical"]),
        "time_constraints": sum(len(s["time_constraints"]) for s in steps),
        "mean_window_seconds": _mean([w for s in steps for w in s["time_constraints"].values()]),
    }
    return {
        "optimal_makespan": best.makespan,
        "optimal": best.optimal,
        "lower_bound": best.bound,
        "greedy_makespan": heuristic.makespan,
        "solve_seconds": round(best.solve_seconds, 3),
        "status": best.status,
        "stats": stats,
        "plan": [list(item) for item in best.plan or []],
    }


def _mean(values: list[int]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None
