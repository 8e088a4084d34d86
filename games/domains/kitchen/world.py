"""The fixed world of CuisineWorld (SPEC section 4): tool kinds, base ingredients, recipe books and
the derived order parameters (τ_int and lifetimes).

Everything here is pure data and pure functions; importers use it to check that a level's dishes
can be made in its kitchen before a level is stored.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from graphlib import TopologicalSorter
from typing import Any

STORAGE = "storage"
SERVING_TABLE = "servingtable"


@dataclass(frozen=True, slots=True)
class ToolKind:
    """A kind of location: how long it stays busy after activation, how much it holds, and whether
    it keeps the activating agent busy too (only the chopboard)."""

    name: str
    busy_steps: int
    capacity: int | None  # None: unlimited
    occupies_agent: bool = False


TOOL_KINDS: dict[str, ToolKind] = {
    kind.name: kind
    for kind in (
        ToolKind(STORAGE, 0, None),
        ToolKind(SERVING_TABLE, 0, None),
        ToolKind("blender", 2, 5),
        ToolKind("chopboard", 1, 1, occupies_agent=True),
        ToolKind("pan", 2, 5),
        ToolKind("fryer", 2, 5),
        ToolKind("mixer", 0, 5),
        ToolKind("pot", 3, 5),
        ToolKind("steamer", 3, 5),
        ToolKind("oven", 3, 5),
    )
}
COOKING_TOOLS = frozenset(TOOL_KINDS) - {STORAGE, SERVING_TABLE}
# Where a get needs no activation first (SPEC: storage and chopboard are always pickable).
ALWAYS_PICKABLE = frozenset({STORAGE, "chopboard"})

BASE_INGREDIENTS: tuple[str, ...] = (
    "pork",
    "beef",
    "tuna",
    "salmon",
    "lamb",
    "chicken",
    "turkey",
    "egg",
    "duck",
    "lobster",
    "pepperoni",
    "potato",
    "carrot",
    "onion",
    "lettuce",
    "tomato",
    "cucumber",
    "leek",
    "broccoli",
    "flour",
    "rice",
    "pasta",
    "dough",
    "cheese",
    "seaweedSheet",
    "bread",
    "tortilla",
)
BASE_SET = frozenset(BASE_INGREDIENTS)

DEFAULT_ALPHAS: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)
DEFAULT_BETA = 2.5
DEFAULT_MAX_STEPS = 60
MAX_PENDING_ORDERS = 6


@dataclass(frozen=True, slots=True)
class Recipe:
    """An exact multiset of ingredients in one tool kind makes ``product``."""

    product: str
    tool: str
    ingredients: tuple[str, ...]  # sorted

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "ingredients": list(self.ingredients)}


class LevelError(ValueError):
    """A recipe book or level that cannot be played; the message says what is wrong."""


def parse_recipes(raw: Mapping[str, Any]) -> dict[str, Recipe]:
    """Recipes from ``{product: {"tool"|"location": kind, "ingredients": [...]}}`` (our format and
    CuisineWorld's ``recipe.json``); raises LevelError naming the faulty entry."""
    recipes: dict[str, Recipe] = {}
    seen: dict[tuple[str, tuple[str, ...]], str] = {}
    for product, entry in raw.items():
        if not isinstance(entry, Mapping):
            raise LevelError(f"recipe {product!r}: expected an object with 'tool' and 'ingredients'")
        tool = entry.get("tool", entry.get("location"))
        ingredients = entry.get("ingredients")
        if tool not in COOKING_TOOLS:
            raise LevelError(f"recipe {product!r}: unknown tool {tool!r}; known: {', '.join(sorted(COOKING_TOOLS))}")
        if not isinstance(ingredients, list) or not ingredients or not all(isinstance(i, str) for i in ingredients):
            raise LevelError(f"recipe {product!r}: 'ingredients' must be a non-empty list of names")
        if product in BASE_SET:
            raise LevelError(f"recipe {product!r}: a base ingredient cannot be a recipe's product")
        key = (str(tool), tuple(sorted(ingredients)))
        capacity = TOOL_KINDS[str(tool)].capacity
        if capacity is not None and len(ingredients) > capacity:
            raise LevelError(
                f"recipe {product!r}: {len(ingredients)} ingredients do not fit a {tool} (holds {capacity})"
            )
        if key in seen:
            raise LevelError(f"recipes {seen[key]!r} and {product!r} use the same ingredients in the same {tool}")
        seen[key] = product
        recipes[product] = Recipe(product=product, tool=str(tool), ingredients=key[1])
    return recipes


def tree_nodes(dish: str, recipes: Mapping[str, Recipe]) -> list[str]:
    """The distinct nodes of ``dish``'s recipe tree (products and base ingredients), dish first.

    Raises LevelError when a node is neither a base ingredient nor a product of ``recipes``, or
    when the recipes form a cycle.
    """
    order: list[str] = []
    seen: set[str] = set()

    def visit(item: str, path: tuple[str, ...]) -> None:
        if item in path:
            raise LevelError(f"recipe cycle: {' -> '.join((*path, item))}")
        if item in seen:
            return
        seen.add(item)
        order.append(item)
        if item in BASE_SET:
            return
        recipe = recipes.get(item)
        if recipe is None:
            raise LevelError(f"{item!r} (needed for {dish!r}) is neither a base ingredient nor a recipe's product")
        for ingredient in recipe.ingredients:
            visit(ingredient, (*path, item))

    visit(dish, ())
    return order


def tree_depths(recipes: Mapping[str, Recipe]) -> dict[str, int]:
    """Each product's recipe-tree depth (1: made from base ingredients only), without recursion.
    ``recipes`` must have no cycle (``tree_nodes`` refuses one)."""
    graph = {product: [i for i in recipe.ingredients if i in recipes] for product, recipe in recipes.items()}
    depth: dict[str, int] = {}
    for product in TopologicalSorter(graph).static_order():  # ingredients first
        depth[product] = 1 + max((depth[i] for i in graph[product]), default=0)
    return depth


def tools_needed(dish: str, recipes: Mapping[str, Recipe]) -> set[str]:
    return {recipes[node].tool for node in tree_nodes(dish, recipes) if node not in BASE_SET}


def recipe_closure(dishes: Iterable[str], recipes: Mapping[str, Recipe]) -> dict[str, Recipe]:
    """The recipes needed to make ``dishes`` (a level's own recipe book)."""
    needed: dict[str, Recipe] = {}
    for dish in dishes:
        for node in tree_nodes(dish, recipes):
            if node not in BASE_SET:
                needed[node] = recipes[node]
    return dict(sorted(needed.items()))


def unmakeable(dishes: Iterable[str], kitchen: Iterable[str], recipes: Mapping[str, Recipe]) -> dict[str, list[str]]:
    """For each dish that the kitchen cannot make, the tool kinds it lacks (or the unknown node)."""
    available = set(kitchen)
    problems: dict[str, list[str]] = {}
    for dish in dishes:
        try:
            missing = sorted(tools_needed(dish, recipes) - available)
        except LevelError as error:
            problems[dish] = [str(error)]
            continue
        if missing:
            problems[dish] = missing
    return problems


def dish_total(dish: str, recipes: Mapping[str, Recipe]) -> int:
    """SPEC's *total* for a dish: wait + 3 × distinct tree nodes, where wait sums (busy − 1) over
    the non-base nodes whose tool stays busy more than one step."""
    nodes = tree_nodes(dish, recipes)
    wait = 0
    for node in nodes:
        if node in BASE_SET:
            continue
        busy = TOOL_KINDS[recipes[node].tool].busy_steps
        if busy > 1:
            wait += busy - 1
    return wait + 3 * len(nodes)


def _ceil(value: float) -> int:
    # round() first so that 0.3 × 20 = 6.000000000000001 does not become 7.
    return math.ceil(round(value, 9))


def task_interval(dishes: Iterable[str], recipes: Mapping[str, Recipe], alpha: float) -> int:
    """τ_int = ceil(α × 0.3 × total), the largest over the level's dishes (at least 1)."""
    return max([_ceil(alpha * 0.3 * dish_total(dish, recipes)) for dish in dishes] + [1])


def lifetime(dish: str, recipes: Mapping[str, Recipe], alpha: float, beta: float = DEFAULT_BETA) -> int:
    """lifetime = ceil(β × α × 0.3 × total) steps (at least 1)."""
    return max(1, _ceil(beta * alpha * 0.3 * dish_total(dish, recipes)))


def derived_parameters(
    dishes: Iterable[str], recipes: Mapping[str, Recipe], alpha: float, beta: float = DEFAULT_BETA
) -> dict[str, Any]:
    dishes = list(dishes)
    return {
        "task_interval": task_interval(dishes, recipes, alpha),
        "lifetimes": {dish: lifetime(dish, recipes, alpha, beta) for dish in dishes},
    }


def location_names(kitchen: Iterable[str]) -> list[tuple[str, str]]:
    """(name, kind) per location, numbered per kind in order: ``pot0``, ``pot1``, ``storage0``."""
    counts: Counter[str] = Counter()
    names = []
    for kind in kitchen:
        names.append((f"{kind}{counts[kind]}", kind))
        counts[kind] += 1
    return names
