"""Executing a whole plan in the benchmark's published format.

A plan is a list of ``[step, recipe, duration_seconds, start_seconds]`` (one entry per chunk). It is
executed in order of start time (at equal starts, autonomous steps first: the cook sets the oven
going, then starts chopping; otherwise in the order given) until the first error, then time runs on
until everything started has ended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from games.domains.recipes import feedback as fb
from games.domains.recipes.execution import advance, begin, check_start
from games.domains.recipes.state import FAILED, RecipesState, initial_state
from games.domains.recipes.text import StepAction
from games.engine.types import Event, Feedback, rejected

PlanItem = tuple[int, str, int, int]


class PlanFormatError(ValueError):
    """A plan that is not a list of [step, recipe, duration_seconds, start_seconds]."""


@dataclass
class PlanRun:
    state: RecipesState
    events: list[Event] = field(default_factory=list)
    error: Feedback | None = None
    executed: int = 0

    @property
    def feasible(self) -> bool:
        return self.error is None


def parse_plan(raw: Any) -> list[PlanItem]:
    """Validate a JSON plan; raises PlanFormatError naming the bad entry."""
    if not isinstance(raw, list):
        raise PlanFormatError("a plan must be a JSON list of [step, recipe, duration_seconds, start_seconds]")
    items: list[PlanItem] = []
    for position, entry in enumerate(raw):
        if not isinstance(entry, list | tuple) or len(entry) != 4:
            raise PlanFormatError(
                f"plan entry {position} must be [step, recipe, duration_seconds, start_seconds], not {entry!r}"
            )
        step, recipe, duration, start = entry
        numbers = (step, duration, start)
        if any(isinstance(n, bool) or not isinstance(n, int | float) or int(n) != n for n in numbers):
            raise PlanFormatError(
                f"plan entry {position}: step, duration and start must be whole numbers, not {entry!r}"
            )
        if not isinstance(recipe, str):
            raise PlanFormatError(f"plan entry {position}: the recipe must be a name, not {recipe!r}")
        items.append((int(step), recipe, int(duration), int(start)))
    return items


def order(state: RecipesState, plan: Sequence[PlanItem]) -> list[PlanItem]:
    def key(item: tuple[int, PlanItem]) -> tuple[int, int, int]:
        position, (step, recipe_name, _, start) = item
        recipe = state.kitchen.recipe_index(recipe_name)
        autonomous = (
            recipe is not None
            and 0 <= step < len(state.kitchen.recipes[recipe].steps)
            and state.kitchen.step(recipe, step).autonomous
        )
        return (start, 0 if autonomous else 1, position)

    return [item for _, item in sorted(enumerate(plan), key=key)]


def run_plan(state: RecipesState, plan: Sequence[PlanItem], *, limit: int | None = None, agent: int = 0) -> PlanRun:
    """Execute ``plan`` (at most ``limit`` entries) from ``state`` until the first error."""
    run = PlanRun(state=state)
    for step, recipe, duration, start in order(state, plan)[:limit]:
        action = StepAction(step, recipe, duration, start)
        if start < 0:
            problem = fb.feedback(
                fb.IN_THE_PAST, f"{action.text()} starts before 00:00:00; give a start of 0 or later."
            )
            return _fail(run, action, problem, fatal=False)
        if duration <= 0:
            problem = fb.feedback(
                fb.DURATION, f"{action.text()} has no duration; give it a duration of at least 1 second."
            )
            return _fail(run, action, problem, fatal=False)
        verdict = check_start(run.state, agent, action)
        if verdict.feedback is not None:
            return _fail(run, action, verdict.feedback, fatal=verdict.fatal)
        run.state, event = begin(verdict, agent)
        run.events.extend([*verdict.events, event])
        run.executed += 1
    ends = [chunk.end for chunk in run.state.chunks]
    if ends:
        run.state, passed = advance(run.state, max(ends))
        run.events.extend(passed)
        if run.state.status == FAILED and run.error is None:
            run.error = fb.feedback(fb.TIME_CONSTRAINT, run.state.reason)
    return run


def _fail(run: PlanRun, action: StepAction, problem: Feedback, *, fatal: bool) -> PlanRun:
    run.error = problem
    run.events.append(rejected(run.state.time, 0, action.text(), problem))
    if fatal:
        run.state = replace(run.state, status=FAILED, reason=problem.message, ended_at=run.state.time)
    return run


def execute_plan(definition: Mapping[str, Any], plan: Sequence[PlanItem], *, time_constraints: bool = True) -> PlanRun:
    state = initial_state(
        definition, options={"time_constraints": time_constraints, "max_rejections": 0, "max_repeats": 0}
    )
    return run_plan(state, plan)
