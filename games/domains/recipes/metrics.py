"""Recipe2Plan metrics (SPEC section 3), all percentages (0-100) except times in seconds.

- success: all steps complete and no time constraint violated;
- progress: completed steps / all steps;
- efficiency (multitask efficiency) = T_save / T_auto, T_save = executed seconds - makespan,
  T_auto = seconds of completed autonomous steps;
- r_efficiency = efficiency / the reference plan's efficiency over its prefix with as many executed
  actions (the reference is the heuristic plan stored with the scenario, or an imported one);
- se (S×E) = r_efficiency if successful, else 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.domains.recipes.state import SUCCESS, RecipesState


def _percent(value: float) -> float:
    return round(100.0 * value, 2)


def timing(state: RecipesState) -> dict[str, float]:
    """Makespan, executed and autonomous seconds, and efficiency as a fraction."""
    makespan = max((chunk.end for chunk in state.chunks), default=0)
    executed = sum(chunk.end - chunk.start for chunk in state.chunks)
    autonomous = sum(
        spec.duration
        for number, recipe in enumerate(state.kitchen.recipes)
        for spec in recipe.steps
        if spec.autonomous and state.is_complete(number, spec.index, at=max(state.time, makespan))
    )
    efficiency = (executed - makespan) / autonomous if autonomous else 0.0
    return {"makespan": makespan, "executed": executed, "autonomous": autonomous, "efficiency": efficiency}


def progress(state: RecipesState) -> float:
    total = sum(len(recipe.steps) for recipe in state.kitchen.recipes)
    done = sum(
        state.is_complete(number, spec.index)
        for number, recipe in enumerate(state.kitchen.recipes)
        for spec in recipe.steps
    )
    return done / total if total else 0.0


def reference_efficiency(state: RecipesState, plan: Sequence[tuple[int, str, int, int]], actions: int) -> float | None:
    """The reference plan's efficiency over its first ``actions`` entries (start order).

    It depends on the kitchen, the plan and ``actions`` only, and every result of a game asks it
    again (twice per web action), so each answer is kept with the kitchen."""
    from games.domains.recipes.plan import run_plan
    from games.domains.recipes.state import Options, RecipesState

    def replay() -> float | None:
        fresh = RecipesState(
            kitchen=state.kitchen,
            options=Options(time_constraints=state.options.time_constraints, max_rejections=0),
            appliances=state.kitchen.appliances,
        )
        run = run_plan(fresh, list(plan), limit=max(actions, 0))
        return timing(run.state)["efficiency"]

    key = ("reference_efficiency", tuple(plan), state.options.time_constraints, max(actions, 0))
    return state.kitchen.memo(key, replay)


def ratio(value: float, reference: float | None) -> float | None:
    if reference is None or reference <= 0:
        return None
    return value / reference


def episode_result(state: RecipesState) -> dict[str, Any]:
    measured = timing(state)
    success = state.status == SUCCESS
    result: dict[str, Any] = {
        "success": success,
        "status": state.status,
        "reason": state.reason,
        "progress": _percent(progress(state)),
        "makespan_seconds": measured["makespan"],
        # what the reference plan (below) takes, so a player can tell how their makespan compares
        "reference_makespan_seconds": None,
        "executed_seconds": measured["executed"],
        "autonomous_seconds": measured["autonomous"],
        "efficiency": _percent(measured["efficiency"]),
        "actions": state.accepted,
        "rejections": sum(state.rejections),
        "time_constraints": state.options.time_constraints,
        "r_efficiency": None,
        "se": 0.0,
    }
    plan = state.kitchen.reference_plan(state.options.time_constraints)
    if plan:
        result["reference_makespan_seconds"] = max(start + duration for _, _, duration, start in plan)
        relative = ratio(measured["efficiency"], reference_efficiency(state, plan, state.accepted))
        if relative is not None:
            result["r_efficiency"] = _percent(relative)
            result["se"] = result["r_efficiency"] if success else 0.0
    return result
