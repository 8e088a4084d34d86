"""The feedback catalogue: why an action was rejected, each with a message that says what to do.

Kinds from SPEC section 3, plus ``syntax`` (not an action), ``already_running`` (the step is under
way), ``not_running`` (nothing to pause), ``unknown_agent`` and ``game_over``.
"""

from __future__ import annotations

from games.engine.types import Feedback

UNKNOWN_RECIPE = "unknown_recipe"
UNKNOWN_STEP = "unknown_step"
IN_THE_PAST = "in_the_past"
COOK_BUSY = "cook_busy"
APPLIANCE_BUSY = "appliance_busy"
APPLIANCE_STATE = "appliance_state"
TIME_CONSTRAINT = "time_constraint"
ALREADY_DONE = "already_done"
DURATION = "duration"
NOT_INTERRUPTIBLE = "not_interruptible"
PREREQUISITE_MISSING = "prerequisite_missing"
PREREQUISITE_RUNNING = "prerequisite_running"
SYNTAX = "syntax"
ALREADY_RUNNING = "already_running"
NOT_RUNNING = "not_running"
UNKNOWN_AGENT = "unknown_agent"
GAME_OVER = "game_over"

#: Every kind with one line on when it happens (shown in docs and the UI's help).
CATALOGUE: dict[str, str] = {
    UNKNOWN_RECIPE: "the recipe is not part of this game",
    UNKNOWN_STEP: "the recipe has no step with that number",
    IN_THE_PAST: "the start time is earlier than the current time",
    COOK_BUSY: "the cook is still doing a continuous step at that time (one cook per agent)",
    APPLIANCE_BUSY: "the appliance is used by another step at that time",
    APPLIANCE_STATE: "the appliance is not in the state the step requires (e.g. oven temperature)",
    TIME_CONSTRAINT: "the step starts too long after the step it must follow closely: the recipe is spoiled (fatal)",
    ALREADY_DONE: "the step is already complete",
    DURATION: "the duration is zero or longer than what is left of the step",
    NOT_INTERRUPTIBLE: "the step cannot be split: it must run all that is left in one go",
    PREREQUISITE_MISSING: "a step that must come first has not been done",
    PREREQUISITE_RUNNING: "a step that must come first is still running",
    SYNTAX: "the text is not an action",
    ALREADY_RUNNING: "the step is under way now",
    NOT_RUNNING: "there is no running chunk of that step to pause",
    UNKNOWN_AGENT: "no such agent in this game",
    GAME_OVER: "the episode has ended",
}


def feedback(kind: str, message: str) -> Feedback:
    assert kind in CATALOGUE, kind
    return Feedback(kind=kind, message=message)
