"""Moving a recipes game forward: starting, pausing and stopping, and letting time pass.

Every check happens on a tentative state advanced to the requested start; only an accepted action
returns the advanced state, so a rejected action never moves the clock (the first fault of the
reference implementation, which moved its clock before checking).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.domains.recipes import feedback as fb
from games.domains.recipes.kitchen import Kitchen, StepSpec
from games.domains.recipes.state import FAILED, SUCCESS, Chunk, RecipesState, evolve_state
from games.domains.recipes.text import StepAction
from games.engine.durations import describe_amount, format_clock
from games.engine.types import COMPLETED, FINISHED, PAUSED, STARTED, Event, Feedback
from games.engine.values import evolve, quick_init

SPOILED = "spoiled"
CHUNK_ENDED = "chunk_ended"


def step_name(state: RecipesState, recipe: int, step: int) -> str:
    return f"step {step} of {state.kitchen.recipes[recipe].name}"


def _capital(text: str) -> str:
    """``text`` with its first letter a capital (``str.capitalize`` would lower the recipe's name)."""
    return text[:1].upper() + text[1:]


def _step_data(state: RecipesState, recipe: int, step: int, **extra: object) -> dict[str, object]:
    return {"recipe": state.kitchen.recipes[recipe].name, "step": step, **extra}


def _props_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# --- time passing -----------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class Spoil:
    time: int
    recipe: int
    step: int
    source: int
    deadline: int


def next_spoil(state: RecipesState) -> Spoil | None:
    """The earliest moment a time constraint becomes impossible to meet, given what has started.

    For a constraint (k, N) on step s, once k's last chunk is scheduled to end at f, every further
    chunk of s must start by f + N: if s still has unscheduled time, it is spoiled at f + N + 1, or
    when its running chunk ends if that is later.
    """
    if not state.options.time_constraints or state.over:
        return None
    cached = state.spoil_cache
    if cached is not None:
        return cached[0]
    earliest: Spoil | None = None
    for spec in state.kitchen.constrained:
        recipe_number = spec.recipe
        if state.remaining(recipe_number, spec.index) <= 0:
            continue
        running = [c.end for c in state.index.by_step.get((recipe_number, spec.index), ()) if c.end > state.time]
        for source, window in spec.time_constraints:
            finished = state.finished_at(recipe_number, source)
            if finished is None:
                continue
            deadline = finished + window
            moment = max(deadline + 1, *running) if running else deadline + 1
            if earliest is None or moment < earliest.time:
                earliest = Spoil(moment, recipe_number, spec.index, source, deadline)
    object.__setattr__(state, "spoil_cache", (earliest,))
    return earliest


def spoil_message(state: RecipesState, spoil: Spoil) -> str:
    window = describe_amount(spoil.deadline - (state.finished_at(spoil.recipe, spoil.source) or 0))
    recipe = state.kitchen.recipes[spoil.recipe].name
    return (
        f"Time constraint violated: {step_name(state, spoil.recipe, spoil.step)} had to start by "
        f"{format_clock(spoil.deadline)} ({window} after step {spoil.source} finished). {recipe} is spoiled and "
        f"the episode fails; next time start step {spoil.source} only when step {spoil.step} can follow it in time."
    )


def next_event_time(state: RecipesState, spoil: Spoil | bool | None = False) -> int | None:
    """When the next chunk ends or a constraint spoils (``spoil``: ``next_spoil(state)`` if the
    caller has it already)."""
    moments = [chunk.end for chunk in state.chunks if chunk.end > state.time]
    if spoil is False:
        spoil = next_spoil(state)
    if isinstance(spoil, Spoil):
        moments.append(spoil.time)
    return min(moments) if moments and not state.over else None


# How a game ended while time passed: (status, reason, moment).
Ending = tuple[str, str, int]


def advance(state: RecipesState, until: int) -> tuple[RecipesState, list[Event]]:
    """Let time pass to ``until``: chunks end, steps complete, constraints spoil, the game ends."""
    now = state.time
    if state.over:
        return (evolve_state(state, time=until) if until > now else state), []
    events, ended = time_passing(state, until)
    return moved(state, until, ended), events


def moved(state: RecipesState, until: int, ended: Ending | None) -> RecipesState:
    """``state`` once time has passed to ``until``; ``ended``: how ``time_passing`` found it ended."""
    time = until if until > state.time else state.time
    if ended is not None:
        status, reason, moment = ended
        return evolve_state(state, time=max(time, moment), status=status, reason=reason, ended_at=moment)
    return evolve_state(state, time=time) if time != state.time else state


def time_passing(state: RecipesState, until: int) -> tuple[list[Event], Ending | None]:
    """What happens while time passes from ``state``'s clock to ``until`` (the game not over): the
    events, and how the game ends if it does. ``advance`` makes the state of it.

    Time passing changes no chunk and no appliance, so the moments things happen are read off once:
    the distinct ends of the chunks still running, in order, and the spoil moment (which does not
    move while time passes: a running chunk that would push it later ends after it, see
    ``next_spoil``). No state is made for the moments in between: a moment after which nothing runs
    any more asks for a dead end at that moment.
    """
    now = state.time
    spoil = next_spoil(state)
    ending: dict[int, list[Chunk]] = {}  # the chunks still running, by end, each in chunk order
    for chunk in state.chunks:
        if chunk.end > now:
            found = ending.get(chunk.end)
            if found is None:
                ending[chunk.end] = [chunk]
            else:
                found.append(chunk)
    pending = sorted(ending)
    last = len(pending)
    events: list[Event] = []
    ended: Ending | None = None
    position = 0
    while True:
        moment = pending[position] if position < last else None
        if spoil is not None and (moment is None or spoil.time < moment):
            moment = spoil.time
        if moment is None or moment > until:
            break
        if position < last and pending[position] == moment:
            position += 1
            _chunk_events(state, moment, ending[moment], events)
        if spoil is not None and spoil.time == moment:
            message = spoil_message(state, spoil)
            data = _step_data(state, spoil.recipe, spoil.step, source=spoil.source, deadline=spoil.deadline)
            events.append(Event(SPOILED, moment, message, None, data))
            events.append(Event(FINISHED, moment, message, None, {"status": FAILED}))
            ended = (FAILED, message, moment)
            break
        if position == last:  # nothing runs after this moment
            if state.index.scheduled == state.kitchen.step_count:  # and every chunk has ended
                message = f"All recipes are complete at {format_clock(moment)}."
                events.append(Event(FINISHED, moment, message, None, {"status": SUCCESS}))
                ended = (SUCCESS, message, moment)
                break
            if spoil is None:
                stuck = _stuck(state, moment)
                if stuck is not None:
                    events.append(Event(FINISHED, moment, stuck, None, {"status": FAILED}))
                    ended = (FAILED, stuck, moment)
                    break
    return events, ended


def _completion_texts(kitchen: Kitchen) -> dict[tuple[int, int], str]:
    """Each step's "... is complete." message, written once per kitchen."""

    def build() -> dict[tuple[int, int], str]:
        return {
            (spec.recipe, spec.index): f"Step {spec.index} of {recipe.name} is complete."
            for recipe in kitchen.recipes
            for spec in recipe.steps
        }

    return kitchen.memo("completion_texts", build)


def _chunk_events(state: RecipesState, moment: int, chunks: list[Chunk], events: list[Event]) -> None:
    """The events of ``chunks``, which end at ``moment``: a step complete, or a chunk of it done."""
    index = state.index
    recipes = state.kitchen.recipes
    for chunk in chunks:
        key = (chunk.recipe, chunk.step)
        left = recipes[chunk.recipe].steps[chunk.step].duration - index.executed[key]
        if left <= 0 and index.last_end[key] <= moment:
            text = _completion_texts(state.kitchen)[key]
            data = {"recipe": recipes[chunk.recipe].name, "step": chunk.step}
            events.append(Event(COMPLETED, moment, text, chunk.agent, data))
        else:
            events.append(
                Event(
                    CHUNK_ENDED,
                    moment,
                    f"{_capital(step_name(state, chunk.recipe, chunk.step))} stopped with "
                    f"{format_clock(left)} left; continue it with another Step(...).",
                    chunk.agent,
                    _step_data(state, chunk.recipe, chunk.step, remaining=left),
                )
            )


def dead_end(state: RecipesState, spoil: Spoil | bool | None = False, moment: int | None = None) -> str | None:
    """Why the game can go no further, when nothing is under way and no step left can start.

    With nothing running, nothing changes by itself: prerequisites, appliances and free cooks stay
    as they are and time-constraint windows only close, so a step that cannot start now never
    will (an oven preheated for the other dish, say). Such a game ends as failed instead of leaving
    the players with nothing to do.

    Asked at every moment time passes, so it is quick: with nothing running and no time window
    open (no spoil pending), a step whose prerequisites are complete can be refused by
    ``check_start`` only for an appliance setting it needs (no cook, appliance or prerequisite is
    busy, and no window applies). So it is a dead end exactly when every such step needs a setting
    the kitchen does not have; ``check_start`` then words the first one's refusal (and, should it
    accept that step after all, nothing is declared). ``test_properties`` checks this against
    ``check_start`` on every step of many random states. ``spoil``: ``next_spoil(state)`` if the
    caller has it already (it does not depend on the clock); ``moment``: ask about the state as it
    is at that moment (its chunks and appliances as they are), not at its own clock."""
    now = state.time if moment is None else moment
    if state.over or any(end > now for end in state.index.last_end.values()):
        return None
    if (next_spoil(state) if spoil is False else spoil) is not None:
        return None
    return _stuck(state, now)


def _stuck(state: RecipesState, now: int) -> str | None:
    """``dead_end`` at ``now``, known to have nothing running and no spoil pending."""
    settings: dict[str, dict[str, object]] | None = None
    blocked: StepAction | None = None
    executed = state.index.executed
    for recipe_number, recipe in enumerate(state.kitchen.recipes):
        steps = recipe.steps
        for spec in steps:
            if executed.get((recipe_number, spec.index), 0) >= spec.duration:
                continue
            # With nothing running, a step is complete exactly when its whole duration is scheduled.
            if not all(executed.get((recipe_number, p), 0) >= steps[p].duration for p in spec.prerequisites):
                continue  # it waits for another remaining step, which is asked about itself
            if not spec.uses or not any(use.require for use in spec.uses):
                return None  # it can start now
            if settings is None:
                settings = {name: dict(props) for name, props in state.appliances}
            if all(settings.get(use.appliance, {}).get(k) == v for use in spec.uses for k, v in use.require):
                return None  # it can start now
            blocked = blocked or StepAction(spec.index, recipe.name)
    if blocked is None:
        return None
    verdict = check_start(state if now == state.time else evolve_state(state, time=now), 0, blocked)
    if verdict.feedback is None:
        return None
    return f"No step left can start at {format_clock(now)}, and nothing is under way: {verdict.feedback.message}"


# --- starting a step ----------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class StartCheck:
    """The verdict on a Step action: either ``feedback`` (``fatal`` for a time constraint) or the
    state advanced to ``start`` (with the events of getting there) ready for ``begin``."""

    feedback: Feedback | None
    fatal: bool = False
    state: RecipesState | None = None
    events: tuple[Event, ...] = ()
    recipe: int = -1
    step: int = -1
    duration: int = 0
    start: int = 0


def _reject(kind: str, message: str, *, fatal: bool = False) -> StartCheck:
    return StartCheck(feedback=fb.feedback(kind, message), fatal=fatal)


# A state advanced to a moment, with the events of getting there (see ``check_start``'s ``ahead``).
Ahead = tuple[RecipesState, list[Event]]


def advanced_to(state: RecipesState, moment: int, cache: dict[int, Ahead] | None = None) -> Ahead:
    """``state`` advanced to ``moment`` (memoised in ``cache``: the observation asks about the same
    few moments for every step).

    With a cache, a later moment is reached from the latest earlier one already there: advancing
    is the same whether time passes in one go or in two (each pass lets exactly the events up to
    its end happen, in order), so only the events between the two moments are worked out again."""
    if moment <= state.time:
        return state, []
    if cache is None:
        return advance(state, moment)
    found = cache.get(moment)
    if found is None:
        earlier = max((m for m in cache if m < moment), default=None)
        if earlier is None:
            found = advance(state, moment)
        else:
            base, before = cache[earlier]
            ahead, after = advance(base, moment)
            found = (ahead, before + after)
        cache[moment] = found
    return found


def check_start(
    state: RecipesState,
    agent: int,
    action: StepAction,
    advanced: dict[int, Ahead] | None = None,
    *,
    now: int | None = None,
) -> StartCheck:
    """All the rules of SPEC section 3 for starting (a chunk of) a step, in the order a player would
    want to hear about them. ``advanced`` memoises the state advanced to each start asked about.

    ``now``: ask as if ``state``'s clock read ``now`` (later), for a caller that knows time passing
    to ``now`` ends nothing and that the step starts then; the accepted check's state is ``state``
    and ``begin`` moves its clock (one copy of the state for the action instead of two).

    Asked for every action and, by the observation, for every step at a few moments: the questions
    go to the chunk index (``RecipesState.index``) and messages are written only for a refusal;
    every question that depends on the clock is asked at the start."""
    kitchen = state.kitchen
    recipe = kitchen.recipe_index(action.recipe)
    if recipe is None:
        names = ", ".join(r.name for r in kitchen.recipes)
        return _reject(fb.UNKNOWN_RECIPE, f"There is no recipe {action.recipe!r} in this game; choose one of: {names}.")
    steps = kitchen.recipes[recipe].steps
    step = action.step
    if not 0 <= step < len(steps):
        name = kitchen.recipes[recipe].name
        return _reject(fb.UNKNOWN_STEP, f"{name} has no step {step}; choose a step from 0 to {len(steps) - 1}.")
    clock = state.time if now is None else now
    start = clock if action.start is None else action.start
    if start < clock:
        return _reject(
            fb.IN_THE_PAST,
            f"It is already {format_clock(clock)}; {step_name(state, recipe, step)} cannot start at "
            f"{format_clock(start)}. Choose a start at or after {format_clock(clock)}.",
        )
    if now is None:
        ahead, events = advanced_to(state, start, advanced)  # ahead.time == start
    else:
        assert start == now, "check_start(now=...) is for a step that starts now"
        ahead, events = state, []
    if ahead.over:
        if ahead.status == FAILED:
            return _reject(fb.TIME_CONSTRAINT, ahead.reason, fatal=True)
        return _reject(fb.GAME_OVER, f"The episode ended at {format_clock(ahead.ended_at or 0)}: {ahead.reason}")
    spec = steps[step]
    index = ahead.index
    key = (recipe, step)
    left = spec.duration - index.executed.get(key, 0)
    if left < spec.duration:  # some of it is scheduled: done, or under way now?
        if left <= 0 and index.last_end[key] <= start:
            return _reject(
                fb.ALREADY_DONE,
                f"{_capital(step_name(state, recipe, step))} is already complete; choose a step that is not done yet.",
            )
        running = ahead.running_chunk(recipe, step, start)
        if running is not None:
            return _reject(fb.ALREADY_RUNNING, _running_message(ahead, running, agent, spec, left))
    duration = left if action.duration is None else action.duration
    if duration <= 0 or duration > left or (duration < left and not spec.interruptible):
        return _reject_duration(state, recipe, step, duration, left, spec.interruptible)
    for prerequisite in spec.prerequisites:
        if not ahead.is_complete(recipe, prerequisite, start):
            return _reject_prerequisite(ahead, recipe, step, prerequisite)
    busy = ahead.busy_until(agent, start)
    if busy > start:
        current = next(c for c in ahead.chunks if c.agent == agent and c.end == busy and not ahead.spec(c).autonomous)
        hint = " or pause it (it is interruptible)" if ahead.spec(current).interruptible else ""
        return _reject(
            fb.COOK_BUSY,
            f"You are busy with {step_name(ahead, current.recipe, current.step)} until {format_clock(busy)}; "
            f"start {step_name(state, recipe, step)} at or after {format_clock(busy)}{hint}.",
        )
    if spec.uses:
        refusal = _appliance_refusal(ahead, recipe, step, spec, start, start + duration)
        if refusal is not None:
            return refusal
    if spec.time_constraints and ahead.options.time_constraints:
        for source, window in spec.time_constraints:
            finished = ahead.finished_at(recipe, source)
            if finished is not None and finished <= start and start > finished + window:
                spoil = Spoil(start, recipe, step, source, finished + window)
                return _reject(fb.TIME_CONSTRAINT, spoil_message(ahead, spoil), fatal=True)
    return StartCheck(None, False, ahead, tuple(events), recipe, step, duration, start)


def _running_message(state: RecipesState, running: Chunk, agent: int, spec: StepSpec, left: int) -> str:
    """Why a step under way cannot start again: who is doing it (the cook asking, a teammate, or
    nobody: it runs by itself) until when, and whether any of it is left to do after that."""
    label, until = step_name(state, running.recipe, running.step), format_clock(running.end)
    if spec.autonomous:
        doing = f"{_capital(label)} is running by itself until {until}"
    elif running.agent == agent:
        doing = f"You are doing {label} until {until}"
    else:
        doing = f"{_capital(label)} is under way: a teammate is doing it until {until}"
    if left <= 0:
        done = format_clock(state.index.last_end[(running.recipe, running.step)])
        return f"{doing}, and it is complete at {done}; choose another step."
    return f"{doing}; choose another step, or do the rest of it ({format_clock(left)}) after {until}."


def _reject_duration(
    state: RecipesState, recipe: int, step: int, duration: int, left: int, interruptible: bool
) -> StartCheck:
    label = step_name(state, recipe, step)
    if duration <= 0:
        return _reject(
            fb.DURATION, f"A step must run for at least 00:00:01; give {label} a duration up to {format_clock(left)}."
        )
    if duration > left:
        return _reject(
            fb.DURATION,
            f"Only {format_clock(left)} of {label} is left; give a duration of at most {format_clock(left)}.",
        )
    assert not interruptible
    return _reject(
        fb.NOT_INTERRUPTIBLE,
        f"{_capital(label)} cannot be interrupted; run it for all of {format_clock(left)} in one go.",
    )


def _reject_prerequisite(ahead: RecipesState, recipe: int, step: int, prerequisite: int) -> StartCheck:
    label = step_name(ahead, recipe, step)
    name = ahead.kitchen.recipes[recipe].name
    finished = ahead.finished_at(recipe, prerequisite)
    if finished is not None:
        return _reject(
            fb.PREREQUISITE_RUNNING,
            f"{_capital(label)} needs step {prerequisite} of {name}, which finishes at "
            f"{format_clock(finished)}; start it at or after {format_clock(finished)}.",
        )
    return _reject(
        fb.PREREQUISITE_MISSING,
        f"{_capital(label)} needs step {prerequisite} of {name} first; do step {prerequisite} "
        f"(and whatever it needs) before it.",
    )


def _appliance_refusal(
    ahead: RecipesState, recipe: int, step: int, spec: StepSpec, start: int, end: int
) -> StartCheck | None:
    """Why the step's appliances do not let it run over [start, end), or None: one in use by
    another chunk then (two recipes' identical settings steps may share it, starting and ending
    together), or not in the setting the step requires."""
    by_appliance = ahead.index.by_appliance
    for use in spec.uses:
        for other in by_appliance.get(use.appliance, ()):
            if other.end <= start or other.start >= end:
                continue
            other_use = next(u for u in ahead.spec(other).uses if u.appliance == use.appliance)
            shared = (
                other.start == start
                and other.end == end
                and other_use == use
                and bool(use.update)
                and other.recipe != recipe
            )
            if not shared:
                return _reject(
                    fb.APPLIANCE_BUSY,
                    f"The {use.appliance} is in use by {step_name(ahead, other.recipe, other.step)} until "
                    f"{format_clock(other.end)}; start {step_name(ahead, recipe, step)} at or after "
                    f"{format_clock(other.end)}.",
                )
        if not use.require:
            continue
        props = ahead.appliance_props(use.appliance)
        for key, wanted in use.require:
            if props.get(key) != wanted:
                have = props.get(key)
                current_text = "not set" if have is None else _props_text(have)
                setter, done = _setter(ahead, use.appliance, key, wanted)
                if not setter:
                    advice = f"first set the {use.appliance} {key} to {_props_text(wanted)}"
                elif done:  # the step that set it has been used up: nothing can set it again
                    advice = f"{setter} set it and is done, and no step left sets it again"
                else:
                    advice = f"first do {setter}"
                return _reject(
                    fb.APPLIANCE_STATE,
                    f"The {use.appliance} {key} is {current_text} but {step_name(ahead, recipe, step)} needs "
                    f"{_props_text(wanted)}; {advice}.",
                )
    return None


def _setter(state: RecipesState, appliance: str, key: str, value: object) -> tuple[str, bool]:
    """The step that sets ``appliance``'s ``key`` to ``value`` (the first one still to do, else the
    first one done) and whether it is done; ``("", False)`` when no step sets it."""
    done = ""
    for recipe_number, recipe in enumerate(state.kitchen.recipes):
        for spec in recipe.steps:
            for use in spec.uses:
                if use.appliance == appliance and (key, value) in use.update:
                    if state.remaining(recipe_number, spec.index) > 0:
                        return step_name(state, recipe_number, spec.index), False
                    done = done or step_name(state, recipe_number, spec.index)
    return done, bool(done)


def begin(check: StartCheck, agent: int) -> tuple[RecipesState, Event]:
    """Apply an accepted StartCheck: add the chunk, apply appliance updates (at the start)."""
    assert check.state is not None and check.feedback is None
    state = check.state
    spec: StepSpec = state.kitchen.recipes[check.recipe].steps[check.step]
    settings = state.appliances
    if spec.uses and any(use.update for use in spec.uses):
        appliances = dict(settings)
        for use in spec.uses:
            if use.update:
                props = dict(appliances.get(use.appliance, ()))
                props.update(dict(use.update))
                appliances[use.appliance] = tuple(sorted(props.items()))
        settings = tuple(sorted(appliances.items()))
    chunk = Chunk(check.recipe, check.step, agent, check.start, check.start + check.duration)
    chunks = (*state.chunks, chunk)
    state = evolve_state(
        state,
        time=check.start,
        chunks=chunks,
        appliances=settings,
        accepted=state.accepted + 1,
        cached_index=state.index.plus(chunk, chunks),
    )
    label = step_name(state, check.recipe, check.step)
    kind = "autonomous, runs by itself" if spec.autonomous else "keeps you busy"
    event = Event(
        STARTED,
        check.start,
        f"Started {label} ({kind}) for {format_clock(check.duration)}; it ends at {format_clock(chunk.end)}.",
        agent,
        {
            "recipe": state.kitchen.recipes[check.recipe].name,
            "step": check.step,
            "start": chunk.start,
            "end": chunk.end,
            "duration": check.duration,
            "autonomous": spec.autonomous,
        },
    )
    return state, event


def pause(state: RecipesState, agent: int, recipe_name: str, step: int) -> tuple[RecipesState, Event] | Feedback:
    recipe = state.kitchen.recipe_index(recipe_name)
    if recipe is None:
        names = ", ".join(r.name for r in state.kitchen.recipes)
        return fb.feedback(
            fb.UNKNOWN_RECIPE, f"There is no recipe {recipe_name!r} in this game; choose one of: {names}."
        )
    steps = state.kitchen.recipes[recipe].steps
    if not 0 <= step < len(steps):
        return fb.feedback(
            fb.UNKNOWN_STEP, f"{state.kitchen.recipes[recipe].name} has no step {step}; choose 0 to {len(steps) - 1}."
        )
    label = step_name(state, recipe, step)
    chunk = state.running_chunk(recipe, step)
    if chunk is None:
        return fb.feedback(fb.NOT_RUNNING, f"{_capital(label)} is not running now, so there is nothing to pause.")
    spec = steps[step]
    if not spec.interruptible:
        return fb.feedback(
            fb.NOT_INTERRUPTIBLE, f"{_capital(label)} cannot be paused; it ends at {format_clock(chunk.end)}."
        )
    if chunk.agent != agent and not spec.autonomous:
        return fb.feedback(
            fb.NOT_RUNNING, f"{_capital(label)} is being done by cook {chunk.agent + 1}; only they can pause it."
        )
    chunks = tuple(c for c in state.chunks if c != chunk)
    if state.time > chunk.start:
        chunks = (*chunks, evolve(chunk, end=state.time))
    state = evolve_state(state, chunks=chunks)
    left = state.remaining(recipe, step)
    event = Event(
        PAUSED,
        state.time,
        f"Paused {label} with {format_clock(left)} left; "
        f"continue it later with Step({step}, {state.kitchen.recipes[recipe].name}).",
        agent,
        _step_data(state, recipe, step, remaining=left),
    )
    return state, event
