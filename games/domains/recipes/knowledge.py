"""What an LLM teammate is told about the recipes besides the observation (SPEC section 7, "the
recipes relevant now"): every step with its time, kind, order and appliances, and how far it is.
The descriptor names it (``Domain.knowledge``)."""

from __future__ import annotations

from games.domains.recipes.state import RecipesState
from games.engine.durations import decimal_minutes


def relevant_knowledge(state: RecipesState) -> str:
    lines = []
    for number, recipe in enumerate(state.kitchen.recipes):
        lines.append(f"Recipe {recipe.name}:")
        for step in recipe.steps:
            left = state.remaining(number, step.index)
            status = "done" if left <= 0 else ("to do" if left == step.duration else f"{decimal_minutes(left)} left")
            facts = [decimal_minutes(step.duration), "runs by itself" if step.autonomous else "occupies the cook"]
            if step.interruptible:
                facts.append("can be paused")
            if step.prerequisites:
                facts.append("after steps " + ", ".join(map(str, step.prerequisites)))
            facts += [f"start within {decimal_minutes(s)} after step {k} ends" for k, s in step.time_constraints]
            facts += [use.appliance for use in step.uses]
            lines.append(f"  step {step.index}: {step.text} ({'; '.join(facts)}) [{status}]")
    return "\n".join(lines)
