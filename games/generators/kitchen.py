"""Generated kitchen levels (CuisineWorld format) and the heuristic dispatcher's CoS on them.

A level is ``dishes`` dishes over a fresh recipe book whose trees are ``depth`` levels deep: a
level-1 product is one or two base ingredients in a tool; a product of level k mixes one product
of level k-1 (in a tool other than the one that made it: no "roasted roasted potato") with up to two
ingredients of lower levels. The tools are ``tools`` cooking kinds drawn
from the ten (the chopboard always among them, two of it), so fewer kinds mean more contention.
Orders arrive every τ_int = ⌈α × 0.3 × total⌉ steps (SPEC section 4): a higher ``alpha`` gives more
time per order.

There is no exact solver for the kitchen: ``optimal_makespan`` and ``greedy_makespan`` are both
the heuristic dispatcher's CoS (mean success rate over ``episodes`` episodes at ``alpha``, with
``agents`` agents) and ``optimal`` is false. ``stats.actions`` is the mean number of distinct
nodes of a dish's tree and ``stats.parallelism`` the mean of a dish's total steps (SPEC's one-agent
work) over its critical path (the longest chain of busy steps down its tree).
"""

from __future__ import annotations

import random
import time
from typing import Any

from games.domains.kitchen.state import build_level
from games.domains.kitchen.world import (
    BASE_INGREDIENTS,
    BASE_SET,
    TOOL_KINDS,
    dish_total,
    parse_recipes,
    tree_depths,
    tree_nodes,
)
from games.generators.knobs import Knob
from games.planners.kitchen_dispatcher import heuristic
from games.planners.kitchen_sweep import sweep

# What ``optimal_makespan`` measures, for the generator page.
OBJECTIVE = "the heuristic dispatcher's CoS (there is no exact solver for the kitchen, so never proven)"
# What an instance's stats.actions counts (the generator page's Actions column).
ACTIONS = "the mean number of nodes of a dish's recipe tree (its products and base ingredients)"

KNOBS = (
    Knob("dishes", 3, 1, 6, "dishes orders may ask for"),
    Knob("depth", 2, 1, 3, "levels of a dish's recipe tree"),
    Knob("tools", 4, 2, 8, "cooking tool kinds in the kitchen (the chopboard always, two of it)"),
    Knob("alpha", 1.5, 1.0, 3.0, "order interval factor (higher: more time per order)"),
    Knob("agents", 2, 1, 4, "agents the heuristic dispatcher commands"),
    Knob("episodes", 1, 1, 3, "episodes the CoS is averaged over"),
)

OTHER_TOOLS = ("pan", "pot", "mixer", "oven", "fryer", "steamer", "blender")
ADJECTIVES = {
    "chopboard": "chopped",
    "pan": "seared",
    "pot": "boiled",
    "mixer": "mixed",
    "oven": "roasted",
    "fryer": "fried",
    "steamer": "steamed",
    "blender": "blended",
}


def build(rng: random.Random, knobs: dict[str, Any], index: int) -> dict[str, Any]:
    kinds = ["chopboard", *rng.sample(OTHER_TOOLS, knobs["tools"] - 1)]
    recipes: dict[str, dict[str, Any]] = {}
    keys: dict[tuple[str, tuple[str, ...]], str] = {}
    dishes: list[str] = []
    attempts = 0
    while len(dishes) < knobs["dishes"]:
        attempts += 1
        dish = _product(rng, knobs["depth"], kinds, recipes, keys)
        if dish not in dishes:
            dishes.append(dish)
        if attempts > 200:  # a tiny book cannot yield that many distinct dishes
            break
    kitchen = ["storage", "servingtable", "chopboard", "chopboard", *kinds[1:]]
    definition = {
        "name": f"generated-{index + 1}",
        "title": f"Generated kitchen #{index + 1}: {len(dishes)} dishes, depth {knobs['depth']}",
        "description": f"{len(dishes)} dishes from {len(kinds)} tool kinds; generated.",
        "kitchen": kitchen,
        "dishes": dishes,
        "recipes": {product: recipes[product] for product in sorted(recipes)},
        "agents": knobs["agents"],
        "max_steps": 60,
        # the pace its CoS was measured at: the level's default, which a game's alpha option overrides
        "alpha": knobs["alpha"],
    }
    build_level(definition, seed=0, options=None)  # refuses a level the rules cannot play
    return definition


def _product(
    rng: random.Random,
    level: int,
    kinds: list[str],
    recipes: dict[str, dict[str, Any]],
    keys: dict[tuple[str, tuple[str, ...]], str],
) -> str:
    """A product of exactly ``level`` (reusing an existing recipe for the same ingredients and tool)."""
    if level == 1:
        tool = rng.choice(kinds)
        count = 1 if TOOL_KINDS[tool].capacity == 1 else rng.choice((1, 2))
        ingredients = rng.sample(BASE_INGREDIENTS, count)
    else:
        inner = _product(rng, level - 1, kinds, recipes, keys)
        # not the tool that made the inner product ("roasted roasted potato"): another cooking tool,
        # else the chopboard (two kinds: "chopped roasted potato")
        made_by = recipes[inner]["tool"]
        others = [kind for kind in kinds if kind not in ("chopboard", made_by)]
        tool = rng.choice(others or [kind for kind in kinds if kind != made_by] or kinds)
        ingredients = [inner]
        if TOOL_KINDS[tool].capacity != 1:
            for _ in range(rng.randint(0, 2)):
                lower = rng.randint(0, level - 1)
                extra = rng.choice(BASE_INGREDIENTS) if lower == 0 else _product(rng, lower, kinds, recipes, keys)
                if extra not in ingredients:
                    ingredients.append(extra)
    key = (tool, tuple(sorted(ingredients)))
    if key in keys:
        return keys[key]
    stem = ingredients[0][0].upper() + ingredients[0][1:]
    name = f"{ADJECTIVES[tool]}{stem}"
    number = 2
    while name in recipes or name in BASE_SET:
        name = f"{ADJECTIVES[tool]}{stem}{number}"
        number += 1
    recipes[name] = {"tool": tool, "ingredients": sorted(ingredients)}
    keys[key] = name
    return name


def _critical_path(dish: str, recipes: dict[str, Any]) -> int:
    """Steps along the longest chain of the tree: per product its tool's busy steps plus 3 moves."""
    if dish in BASE_SET:
        return 3
    recipe = recipes[dish]
    below = max(_critical_path(i, recipes) for i in recipe.ingredients)
    return below + 3 + max(0, TOOL_KINDS[recipe.tool].busy_steps - 1)


def evaluate(definition: dict[str, Any], knobs: dict[str, Any], max_seconds: float) -> dict[str, Any]:
    started = time.perf_counter()
    found = sweep(definition, heuristic, agents=knobs["agents"], episodes=knobs["episodes"], alphas=[knobs["alpha"]])
    recipes = parse_recipes(definition["recipes"])
    dishes = definition["dishes"]
    totals = [dish_total(dish, recipes) for dish in dishes]
    nodes = [len(tree_nodes(dish, recipes)) for dish in dishes]
    paths = [_critical_path(dish, recipes) for dish in dishes]
    depths = tree_depths(recipes)
    by_alpha = next(iter(found["by_alpha"].values()))
    stats = {
        "actions": round(sum(nodes) / len(nodes), 4),
        "parallelism": round(sum(t / p for t, p in zip(totals, paths, strict=True)) / len(dishes), 4),
        "cos": found["cos"],
        "dishes": len(dishes),
        "depth": max(depths[dish] for dish in dishes),
        "tool_kinds": len(set(definition["kitchen"]) - {"storage", "servingtable"}),
        "mean_dish_total": round(sum(totals) / len(totals), 2),
        "task_interval": by_alpha["task_interval"],
        "completed": by_alpha["completed"],
        "failed": by_alpha["failed"],
    }
    return {
        "optimal_makespan": found["cos"],
        "optimal": False,
        "lower_bound": None,
        "greedy_makespan": found["cos"],
        "solve_seconds": round(time.perf_counter() - started, 3),
        "status": "HEURISTIC",
        "stats": stats,
        "plan": [],
    }
