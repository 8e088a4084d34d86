"""What an LLM teammate is told about the kitchen besides the observation (SPEC section 7, "the
recipes relevant now"): the recipe trees of the dishes ordered. The descriptor names it
(``Domain.knowledge``)."""

from __future__ import annotations

from games.domains.kitchen.state import KitchenState
from games.domains.kitchen.world import BASE_SET, tree_nodes


def relevant_knowledge(state: KitchenState) -> str:
    recipes = state.level.recipes
    lines = []
    for dish in sorted({order.dish for order in state.orders}):
        for node in reversed(tree_nodes(dish, recipes)):
            if node in BASE_SET or node not in recipes:
                continue
            recipe = recipes[node]
            lines.append(f"{node} = {' + '.join(recipe.ingredients)} in a {recipe.tool}")
    return "\n".join(dict.fromkeys(lines))
