""" "The recipes or tasks relevant now" (SPEC section 7) for domains whose observation leaves them
out: the recipes' steps for ``recipes``, the recipe trees of the dishes ordered for ``kitchen``.
tasks and itinerary observations already list their tasks and the brief. A rule set may offer its
own ``relevant_knowledge(state)``, which wins.
"""

from __future__ import annotations

from typing import Any


def relevant_knowledge(domain: str, rules: Any, state: Any) -> str:
    own = getattr(rules, "relevant_knowledge", None)
    if callable(own):
        return str(own(state))
    try:
        if domain == "recipes":
            return _recipes(state)
        if domain == "kitchen":
            return _kitchen(state)
    except (AttributeError, KeyError, ImportError):
        return ""  # a domain's state changed shape: the prompt does without this section
    return ""


def _minutes(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds / 60:.1f} min"


def _recipes(state: Any) -> str:
    lines = []
    for number, recipe in enumerate(state.kitchen.recipes):
        lines.append(f"Recipe {recipe.name}:")
        for step in recipe.steps:
            left = state.remaining(number, step.index)
            status = "done" if left <= 0 else ("to do" if left == step.duration else f"{_minutes(left)} left")
            facts = [_minutes(step.duration), "runs by itself" if step.autonomous else "occupies the cook"]
            if step.interruptible:
                facts.append("can be paused")
            if step.prerequisites:
                facts.append("after steps " + ", ".join(map(str, step.prerequisites)))
            facts += [f"start within {_minutes(s)} after step {k} ends" for k, s in step.time_constraints]
            facts += [use.appliance for use in step.uses]
            lines.append(f"  step {step.index}: {step.text} ({'; '.join(facts)}) [{status}]")
    return "\n".join(lines)


def _kitchen(state: Any) -> str:
    from games.domains.kitchen.world import BASE_SET, tree_nodes

    recipes = state.level.recipes
    lines = []
    for dish in sorted({order.dish for order in state.orders}):
        for node in reversed(tree_nodes(dish, recipes)):
            if node in BASE_SET or node not in recipes:
                continue
            recipe = recipes[node]
            lines.append(f"{node} = {' + '.join(recipe.ingredients)} in a {recipe.tool}")
    return "\n".join(dict.fromkeys(lines))
