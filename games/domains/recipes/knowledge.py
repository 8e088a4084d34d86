"""What an LLM teammate is told about the recipes besides the observation (SPEC section 7, "the
recipes relevant now"): every step with its time, kind, order and appliances, then how far each
step is. The descriptor names it (``Domain.knowledge``).

The book comes first and reads the same every turn of a game; only the progress lines after it
change. A model server that keeps the last prompt's computed prefix (llama.cpp, vLLM; hosted APIs'
prompt caching) then reads the book once per game instead of once per turn.
"""

from __future__ import annotations

from games.domains.recipes.state import RecipesState
from games.engine.durations import decimal_minutes, format_clock


def relevant_knowledge(state: RecipesState) -> str:
    return book(state) + "\n" + progress(state)


def book(state: RecipesState) -> str:
    lines = []
    for recipe in state.kitchen.recipes:
        lines.append(f"Recipe {recipe.name}:")
        for step in recipe.steps:
            facts = [decimal_minutes(step.duration), "runs by itself" if step.autonomous else "occupies the cook"]
            if step.interruptible:
                facts.append("can be paused")
            if step.prerequisites:
                facts.append("after steps " + ", ".join(map(str, step.prerequisites)))
            facts += [f"start within {decimal_minutes(s)} after step {k} ends" for k, s in step.time_constraints]
            facts += [use.appliance for use in step.uses]
            lines.append(f"  step {step.index}: {step.text} ({'; '.join(facts)})")
    return "\n".join(lines)


def progress(state: RecipesState) -> str:
    """Per recipe, its steps grouped by where they stand at the current time."""
    lines = [f"Where the steps stand at {format_clock(state.time)}:"]
    for number, recipe in enumerate(state.kitchen.recipes):
        groups: dict[str, list[str]] = {"done": [], "under way": [], "paused": [], "to do": []}
        for step in recipe.steps:
            status = state.status_of(number, step.index)
            if status == "running":
                chunk = state.running_chunk(number, step.index)
                until = f" (until {format_clock(chunk.end)})" if chunk is not None else ""
                groups["under way"].append(f"{step.index}{until}")
            elif status == "paused" and state.remaining(number, step.index) > 0:
                groups["paused"].append(f"{step.index} ({decimal_minutes(state.remaining(number, step.index))} left)")
            elif status == "paused":  # all of it planned, the rest starting later
                start = min(c.start for c in state.step_chunks(number, step.index) if c.start > state.time)
                groups["under way"].append(f"{step.index} (from {format_clock(start)})")
            else:
                groups["done" if status == "done" else "to do"].append(str(step.index))
        parts = [f"{name} {', '.join(steps)}" for name, steps in groups.items() if steps]
        lines.append(f"  {recipe.name}: {'; '.join(parts)}")
    return "\n".join(lines)
