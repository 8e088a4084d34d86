"""The recipes rule set (Recipe2Plan, SPEC section 3) on the shared engine: ``RULES`` (``recipes-v1``).

Game time is whole seconds. A ``Step(...)`` dated in the future moves the clock to its start when it
is accepted (planning agents give start times); a rejected action never moves the clock. Options:
``time_constraints`` (default on; off = the benchmark's "easy" level), ``hints`` (list the steps that
could start next in the text observation), ``max_rejections`` (10) and ``max_repeats`` (3): the
benchmark's revision limits; 0 turns a limit off (real-time play with people).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.domains.recipes import feedback as fb
from games.domains.recipes.execution import (
    advance,
    begin,
    check_start,
    moved,
    next_event_time,
    pause,
    time_passing,
)
from games.domains.recipes.metrics import episode_result
from games.domains.recipes.observation import legal_actions, observation_data, observation_text
from games.domains.recipes.state import (
    FAILED,
    STOPPED,
    TRUNCATED,
    RecipesState,
    dump_state,
    evolve_state,
    initial_state,
    load_state,
)
from games.domains.recipes.text import ActionSyntaxError, PauseAction, StepAction, StopAction, parse_actions
from games.engine.durations import format_clock
from games.engine.types import FINISHED, Event, Feedback, Observation, Outcome, Transition, rejected


def _seconds(value: float) -> int:
    if type(value) is int:
        return value
    return math.floor(value + 1e-9)


class RecipesRules:
    id = "recipes-v1"
    domain = "recipes"
    time_unit = "second"

    def initial_state(
        self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options: Mapping[str, Any] | None = None
    ) -> RecipesState:
        return initial_state(scenario, agents=agents, options=options)

    def now(self, state: RecipesState) -> float:
        return state.time

    def legal_actions(self, state: RecipesState, agent: int) -> list[str]:
        return legal_actions(state, agent)

    def observe(self, state: RecipesState, agent: int) -> Observation:
        data = observation_data(state, agent)
        return Observation(text=observation_text(state, agent, data), data=data)

    def act(self, state: RecipesState, agent: int, action: str, now: float) -> Transition[RecipesState]:
        events: list[Event] = []
        moment = _seconds(now)
        if moment > state.time and not state.over:
            passed, ended = time_passing(state, moment)
            events.extend(passed)
            step = self._starting_now(state, agent, action, moment) if ended is None else None
            if step is not None:
                # The commonest action: a step starting as time moves on. Checked as of ``moment``
                # and begun there, the state is copied once (any refusal takes the general path).
                verdict = check_start(state, agent, step, now=moment)
                if verdict.feedback is None:
                    started, event = begin(verdict, agent)
                    return Transition(self._accepted(started, agent), (*events, event))
            state = moved(state, moment, ended)
        if state.over:
            message = f"The episode has ended ({state.status}): {state.reason} Start a new game to play again."
            return Transition(state, (*events, rejected(state.time, agent, action, fb.feedback(fb.GAME_OVER, message))))
        if not 0 <= agent < state.agents:
            problem = fb.feedback(
                fb.UNKNOWN_AGENT, f"There is no cook {agent}; this game has cooks 0 to {state.agents - 1}."
            )
            return Transition(state, (*events, rejected(state.time, agent, action, problem)))
        try:
            parsed = parse_actions(action)
        except ActionSyntaxError as error:
            return self._rejected(state, agent, action, fb.feedback(fb.SYNTAX, str(error)), events)
        if len(parsed) > 1:  # a plan
            if not all(isinstance(item, StepAction) for item in parsed):
                problem = fb.feedback(
                    fb.SYNTAX, "A plan is a list of Step(...) only; send Pause(...) or Stop() on its own."
                )
                return self._rejected(state, agent, action, problem, events)
            steps = [item for item in parsed if isinstance(item, StepAction)]
            return self._plan(state, agent, action, steps, events)
        only = parsed[0]
        if isinstance(only, StopAction):
            message = f"Cook {agent} stopped at {format_clock(state.time)}."
            state = evolve_state(state, status=STOPPED, reason=message, ended_at=state.time)
            return Transition(state, (*events, Event(FINISHED, state.time, message, agent, {"status": STOPPED})))
        if isinstance(only, PauseAction):
            outcome = pause(state, agent, only.recipe, only.step)
            if isinstance(outcome, Feedback):
                return self._rejected(state, agent, action, outcome, events)
            state, event = outcome
            return Transition(self._accepted(state, agent), (*events, event))
        return self._step(state, agent, action, only, events)

    @staticmethod
    def _starting_now(state: RecipesState, agent: int, action: str, moment: int) -> StepAction | None:
        """The action as one Step(...) by a cook of the game that starts at ``moment``, else None."""
        if not 0 <= agent < state.agents:
            return None
        try:
            parsed = parse_actions(action)
        except ActionSyntaxError:
            return None
        if len(parsed) != 1:
            return None
        only = parsed[0]
        if isinstance(only, StepAction) and (only.start is None or only.start == moment):
            return only
        return None

    def _step(
        self, state: RecipesState, agent: int, action: str, step: StepAction, events: list[Event]
    ) -> Transition[RecipesState]:
        verdict = check_start(state, agent, step)
        if verdict.feedback is not None:
            if verdict.fatal:
                # A spoiled recipe ends the episode; the clock stays where it was.
                message = verdict.feedback.message
                failed = evolve_state(state, status=FAILED, reason=message, ended_at=state.time)
                return Transition(
                    failed,
                    (
                        *events,
                        rejected(state.time, agent, action, verdict.feedback),
                        Event(FINISHED, state.time, message, None, {"status": FAILED}),
                    ),
                )
            return self._rejected(state, agent, action, verdict.feedback, events)
        started, event = begin(verdict, agent)
        return Transition(self._accepted(started, agent), (*events, *verdict.events, event))

    def _plan(
        self, state: RecipesState, agent: int, action: str, steps: list[StepAction], events: list[Event]
    ) -> Transition[RecipesState]:
        def key(item: tuple[int, StepAction]) -> tuple[int, int, int]:
            position, step = item
            recipe = state.kitchen.recipe_index(step.recipe)
            autonomous = (
                recipe is not None
                and 0 <= step.step < len(state.kitchen.recipes[recipe].steps)
                and state.kitchen.step(recipe, step.step).autonomous
            )
            return (state.time if step.start is None else step.start, 0 if autonomous else 1, position)

        for _, step in sorted(enumerate(steps), key=key):
            transition = self._step(state, agent, step.text(), step, [])
            events.extend(transition.events)
            state = transition.state
            if transition.rejection is not None or state.over:
                break
        return Transition(state, tuple(events))

    def _accepted(self, state: RecipesState, agent: int) -> RecipesState:
        if state.repeats[agent] == 0 and state.last_rejected[agent] == "":
            return state  # nothing to reset
        repeats = list(state.repeats)
        last = list(state.last_rejected)
        repeats[agent], last[agent] = 0, ""
        return evolve_state(state, repeats=tuple(repeats), last_rejected=tuple(last))

    def _rejected(
        self, state: RecipesState, agent: int, action: str, problem: Feedback, events: list[Event]
    ) -> Transition[RecipesState]:
        counts, repeats, last = list(state.rejections), list(state.repeats), list(state.last_rejected)
        counts[agent] += 1
        repeats[agent] = repeats[agent] + 1 if last[agent] == action else 1
        last[agent] = action
        state = evolve_state(state, rejections=tuple(counts), repeats=tuple(repeats), last_rejected=tuple(last))
        out = [*events, rejected(state.time, agent, action, problem)]
        limit, repeat_limit = state.options.max_rejections, state.options.max_repeats
        reason = ""
        if limit and counts[agent] >= limit:
            reason = f"Cook {agent} made {counts[agent]} rejected attempts (the limit is {limit})."
        elif repeat_limit and repeats[agent] >= repeat_limit:
            reason = f"Cook {agent} sent the same rejected action {repeats[agent]} times in a row."
        if reason:
            state = evolve_state(state, status=TRUNCATED, reason=reason, ended_at=state.time)
            out.append(Event(FINISHED, state.time, reason, agent, {"status": TRUNCATED}))
        return Transition(state, tuple(out))

    def advance(self, state: RecipesState, until: float) -> Transition[RecipesState]:
        state, events = advance(state, _seconds(until))
        return Transition(state, tuple(events))

    def next_deadline(self, state: RecipesState) -> float | None:
        return next_event_time(state)

    def awaiting(self, state: RecipesState) -> frozenset[int]:
        if state.over:
            return frozenset()
        return frozenset(agent for agent in range(state.agents) if state.busy_until(agent) <= state.time)

    def outcome(self, state: RecipesState) -> Outcome:
        if state.status in {"success", FAILED, STOPPED}:
            return Outcome(terminated=True, reason=state.reason)
        if state.status == TRUNCATED:
            return Outcome(truncated=True, reason=state.reason)
        return Outcome()

    def result(self, state: RecipesState) -> dict[str, Any]:
        return episode_result(state)

    def dump_state(self, state: RecipesState) -> dict[str, Any]:
        return dump_state(state)

    def load_state(self, raw: Mapping[str, Any]) -> RecipesState:
        return load_state(raw)


RULES = RecipesRules()
