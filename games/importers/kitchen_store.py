"""Storing kitchen content: the catalogue rows and the playable scenario of a level.

Shared by the CuisineWorld importer and the bundled-content loader so both store levels the same
way. Every function is idempotent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.catalog.kitchen.models import Ingredient, KitchenRecipe, Level, Tool
from games.domains.kitchen.world import BASE_INGREDIENTS, TOOL_KINDS, Recipe
from games.models import Scenario
from games.scenarios import save_scenario


def store_tools() -> None:
    for kind in TOOL_KINDS.values():
        Tool.objects.update_or_create(
            name=kind.name,
            defaults={"busy_steps": kind.busy_steps, "capacity": kind.capacity, "occupies_agent": kind.occupies_agent},
        )


def store_recipes(source: str, recipes: Mapping[str, Recipe]) -> int:
    """Catalogue rows for ``recipes``; returns how many recipes were created or changed."""
    store_tools()
    for name in BASE_INGREDIENTS:
        Ingredient.objects.update_or_create(name=name, defaults={"is_base": True})
    tools = {tool.name: tool for tool in Tool.objects.all()}
    changed = 0
    for product, recipe in recipes.items():
        product_row, _ = Ingredient.objects.get_or_create(name=product, defaults={"is_base": False})
        ingredient_rows = [Ingredient.objects.get_or_create(name=name)[0] for name in recipe.ingredients]
        row, created = KitchenRecipe.objects.get_or_create(
            source=source, product=product_row, defaults={"tool": tools[recipe.tool]}
        )
        current = sorted(row.ingredients.values_list("name", flat=True))
        if created or row.tool_id != tools[recipe.tool].pk or current != sorted(recipe.ingredients):
            row.tool = tools[recipe.tool]
            row.save(update_fields=["tool"])
            row.ingredients.set(ingredient_rows)
            changed += 1
    return changed


def store_level(
    *,
    slug: str,
    name: str,
    title: str,
    source: str,
    definition: dict[str, Any],
    description: str = "",
    notes: str = "",
) -> str:
    """Save the level's scenario and its catalogue row; return "created", "updated" or "unchanged"."""
    existed = Scenario.objects.filter(slug=slug).exists()
    scenario, changed = save_scenario(
        domain="kitchen", slug=slug, title=title, source=source, definition=definition, description=description
    )
    Level.objects.update_or_create(
        slug=slug,
        defaults={
            "name": name,
            "source": source,
            "kitchen": definition["kitchen"],
            "dishes": definition["dishes"],
            "default_agents": definition.get("agents", 2),
            "notes": notes,
            "scenario": scenario,
        },
    )
    if not changed:
        return "unchanged"
    return "updated" if existed else "created"
