"""What an agent sees of a recipes game: a text for LLMs and a structured view for the browser.

``observe(state, agent).data`` has this shape (times in seconds of game time, ``*_clock`` the same
as HH:MM:SS)::

    {
      "time": 300, "clock": "00:05:00", "agent": 0, "agents": 1,
      "time_constraints": true, "status": "playing", "reason": "",
      "progress": {"done": 3, "total": 24},
      "recipes": [{"name": "Cobbler", "complete": false, "done": 2, "total": 8, "steps": [{
          "index": 0, "text": "Preheat the oven to 350 degrees.", "duration": 600,
          "autonomous": true, "interruptible": false,
          "status": "done" | "running" | "paused" | "todo",
          "executed": 600, "remaining": 0,          # seconds scheduled / not yet scheduled
          "running_until": null,                    # end of the running chunk, if any
          "finished_at": 600,                       # when the last chunk ends (null if not all scheduled)
          "prerequisites": [], "time_constraints": [{"after": 2, "within": 120, "deadline": 420 | null}],
          "appliances": [{"name": "oven", "require": {}, "update": {"temperature": 350}}],
          "chunks": [{"start": 0, "end": 600, "agent": 0}],
          "can_start_at": 0 | null                  # earliest moment it could start (see "next")
      }, ...]}, ...],
      "appliances": [{"name": "oven", "state": {"temperature": 350}, "in_use": true,
                      "users": [{"recipe": "Cobbler", "step": 7, "agent": 0, "start": 660, "until": 2460}]}],
      "running": [{"recipe": "Cobbler", "step": 7, "agent": 0, "start": 660, "end": 2460,
                   "autonomous": true, "text": "Bake in the oven"}],
      "cooks": [{"agent": 0, "busy_until": 780, "busy": true,
                 "doing": {"recipe": "Cobbler", "step": 5} | null}],
      "next": [{"at": 300, "clock": "00:05:00", "steps": [{"recipe": "Cobbler", "step": 6}]}],
      "deadlines": [{"recipe": "Cobbler", "step": 3, "after": 2, "deadline": 240}]
    }

The text lists the time, each appliance's state, the running autonomous steps with their finish
times and, when the ``hints`` option is on, the steps that could start next.
"""

from __future__ import annotations

from typing import Any

from games.domains.recipes.execution import Ahead, advanced_to, check_start, step_name
from games.domains.recipes.kitchen import StepSpec
from games.domains.recipes.state import RecipesState
from games.domains.recipes.text import PauseAction, StepAction
from games.engine.durations import format_clock
from games.engine.values import own_cache

_HINT_MOMENTS = 8


def _moments(state: RecipesState) -> list[int]:
    return sorted({state.time, *(c.end for c in state.chunks if c.end > state.time)})[:_HINT_MOMENTS]


def _first_moment(
    state: RecipesState, agent: int, recipe: int, step: int, moments: list[int], advanced: dict[int, Ahead]
) -> int | None:
    """The first of ``moments`` at which ``agent`` could start the step, or None (also after a
    fatal refusal: a closed time window only gets later)."""
    name = state.kitchen.recipes[recipe].name
    verdicts = _verdicts(state)
    for moment in moments:
        # check_start reads the cook only to ask whether it is busy at the start: for every cook
        # free then, the verdict is the same, so the other seats' observations reuse it.
        ahead = advanced_to(state, moment, advanced)[0]
        key = (recipe, step, moment, agent if ahead.busy_until(agent) > moment else -1)
        found = verdicts.get(key)
        if found is None:
            verdict = check_start(state, agent, StepAction(step, name, None, moment), advanced)
            found = verdicts[key] = (verdict.feedback is None, verdict.fatal)
        works, fatal = found
        if works:
            return moment
        if fatal:
            return None
    return None


def _advances(state: RecipesState) -> dict[int, Ahead]:
    """A memo of ``state`` advanced to each moment asked about, kept on the state for the other
    seats' observations. Advancing reads the clock, status, options, chunks and appliances only; a
    copy that differs in those (new chunks, a new time) gets a fresh memo. The advanced states are
    only asked whether a step could start, never returned."""
    cached = state.cached_advances
    if (
        cached is not None
        and cached[0] is state.chunks
        and cached[1] is state.appliances
        and cached[2] == (state.time, state.status, state.options)
    ):
        memo: dict[int, Ahead] = cached[3]
        return memo
    memo = {}
    object.__setattr__(
        state, "cached_advances", (state.chunks, state.appliances, (state.time, state.status, state.options), memo)
    )
    return memo


def _verdicts(state: RecipesState) -> dict[Any, Any]:
    """Whether (recipe, step, moment, busy cook or -1) could start, and whether its refusal is
    fatal, (``"candidates"``) the steps worth trying and (``("legal", agent)``) each cook's legal
    actions: worked out once per state for every seat's hints and frames."""
    return own_cache(state, "hinted")


def next_steps(state: RecipesState, agent: int) -> list[dict[str, Any]]:
    """Steps that could start next, grouped by the earliest moment they could start."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    if state.over:
        return []
    moments = _moments(state)
    advanced = _advances(state)
    # Before the cook's own continuous chunk ends nothing can start (check_start refuses it as
    # busy, or fatally for a window that only gets later), so those moments need no trial run.
    busy = state.busy_until(agent)
    mine = [moment for moment in moments if moment >= busy]
    for recipe_number, name, index in _candidates(state):
        moment = _first_moment(state, agent, recipe_number, index, mine, advanced)
        if moment is not None:
            grouped.setdefault(moment, []).append({"recipe": name, "step": index})
    return [{"at": at, "clock": format_clock(at), "steps": grouped[at]} for at in sorted(grouped)]


def _candidates(state: RecipesState) -> list[tuple[int, str, int]]:
    """The steps some moment could work for, whoever asks: time left, and every prerequisite
    scheduled in full. A prerequisite not yet scheduled in full stays so while time passes, so
    ``check_start`` would refuse the step at every moment: no trial run is spent on it. Read off
    the chunk index (durations are at least one second, so "at least the duration scheduled" is
    "scheduled in full"). Worked out once per state, for every seat's hints and legal actions."""
    memo = _verdicts(state)
    known: list[tuple[int, str, int]] | None = memo.get("candidates")
    if known is not None:
        return known
    executed = state.index.executed
    found = []
    for recipe_number, recipe in enumerate(state.kitchen.recipes):
        steps = recipe.steps
        for spec in steps:
            if executed.get((recipe_number, spec.index), 0) >= spec.duration:
                continue
            if all(executed.get((recipe_number, p), 0) >= steps[p].duration for p in spec.prerequisites):
                found.append((recipe_number, recipe.name, spec.index))
    memo["candidates"] = found
    return found


def legal_actions(state: RecipesState, agent: int) -> list[str]:
    """Steps the agent could start now in full, then pauses of its own interruptible chunks.

    In the form that means "now" (``Step(k, Recipe)``: all that is left, starting when the server
    takes it), so an action chosen from this list a few seconds later is still accepted unless the
    kitchen changed meanwhile. The fully timed form stays accepted for planning agents.

    Worked out once per state and agent (the game loop asks whether a cook has anything to do,
    then each seat's frame lists them); only the hint candidates are tried, since ``check_start``
    refuses a step whose prerequisites are not all scheduled in full.
    """
    if state.over or not 0 <= agent < state.agents:
        return []
    memo = _verdicts(state)
    found: list[str] | None = memo.get(("legal", agent))
    if found is not None:
        return list(found)
    actions: list[str] = []
    for _, name, index in _candidates(state):
        action = StepAction(index, name)
        if check_start(state, agent, action).feedback is None:
            actions.append(action.text())
    for chunk in state.chunks:
        spec = state.spec(chunk)
        if chunk.agent == agent and chunk.start <= state.time < chunk.end and spec.interruptible:
            actions.append(PauseAction(chunk.step, state.kitchen.recipes[chunk.recipe].name).text())
    memo[("legal", agent)] = actions
    return list(actions)


def _deadlines(state: RecipesState) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if not state.options.time_constraints:
        return found
    for recipe_number, recipe in enumerate(state.kitchen.recipes):
        for spec in recipe.steps:
            if state.remaining(recipe_number, spec.index) <= 0:
                continue
            for source, window in spec.time_constraints:
                finished = state.finished_at(recipe_number, source)
                if finished is not None:
                    found.append(
                        {"recipe": recipe.name, "step": spec.index, "after": source, "deadline": finished + window}
                    )
    return sorted(found, key=lambda item: item["deadline"])


def observation_data(state: RecipesState, agent: int) -> dict[str, Any]:
    """``agent``'s structured view. What every cook sees alike is built once per state and its
    parts are shared between the cooks' views (read them, do not change them); ``can_start_at``
    and ``next`` are the cook's own."""
    hints = next_steps(state, agent)
    can_start = {(s["recipe"], s["step"]): group["at"] for group in hints for s in group["steps"]}
    shared = state.observed
    if shared is None:
        shared = _shared_data(state)
        object.__setattr__(state, "observed", shared)
    recipes = [
        {
            **recipe,
            "steps": [
                {**step, "can_start_at": can_start.get((recipe["name"], step["index"]))} for step in recipe["steps"]
            ],
        }
        for recipe in shared["recipes"]
    ]
    return {**shared, "agent": agent, "recipes": recipes, "next": hints}


def _static_parts(
    state: RecipesState,
) -> tuple[dict[tuple[int, int], Any], dict[tuple[int, int], Any], dict[tuple[int, int], Any]]:
    """Each step's ``prerequisites`` and ``appliances`` lists as the view writes them, and its
    whole view before anything is scheduled: they never change, so they are built once per kitchen
    and shared by every view (read-only, like the rest of the shared view)."""

    def build() -> tuple[dict[tuple[int, int], Any], dict[tuple[int, int], Any], dict[tuple[int, int], Any]]:
        steps = [(r, spec) for r, recipe in enumerate(state.kitchen.recipes) for spec in recipe.steps]
        prerequisites = {(r, spec.index): list(spec.prerequisites) for r, spec in steps}
        uses = {(r, spec.index): [{"name": use.appliance, **use.to_json()} for use in spec.uses] for r, spec in steps}
        blank = RecipesState(kitchen=state.kitchen, options=state.options)
        untouched = {(r, spec.index): _step_view(blank, r, spec, prerequisites, uses) for r, spec in steps}
        return prerequisites, uses, untouched

    return state.kitchen.memo("view_static", build)


def _step_view(
    state: RecipesState,
    recipe_number: int,
    spec: StepSpec,
    prerequisites: dict[tuple[int, int], Any],
    uses: dict[tuple[int, int], Any],
) -> dict[str, Any]:
    """One step of the shared view (without ``can_start_at``)."""
    index, now = state.index, state.time
    key = (recipe_number, spec.index)
    chunks = index.by_step.get(key, ())
    executed = index.executed.get(key, 0)
    finished_at = index.last_end[key] if executed >= spec.duration else None
    current = next((c for c in chunks if c.start <= now < c.end), None)
    if finished_at is not None and finished_at <= now:
        status = "done"
    elif current is not None:
        status = "running"
    else:
        status = "paused" if executed else "todo"
    deadlines = []
    for source, window in spec.time_constraints:
        finished = state.finished_at(recipe_number, source)
        deadlines.append(
            {"after": source, "within": window, "deadline": None if finished is None else finished + window}
        )
    return {
        "index": spec.index,
        "text": spec.text,
        "duration": spec.duration,
        "autonomous": spec.autonomous,
        "interruptible": spec.interruptible,
        "status": status,
        "executed": executed,
        "remaining": spec.duration - executed,
        "running_until": current.end if current else None,
        "finished_at": finished_at,
        "prerequisites": prerequisites[key],
        "time_constraints": deadlines,
        "appliances": uses[key],
        "chunks": [{"start": c.start, "end": c.end, "agent": c.agent} for c in chunks],
    }


def _shared_data(state: RecipesState) -> dict[str, Any]:
    """The view without the cook's own parts (``agent``, ``next``, each step's ``can_start_at``),
    keys in the view's order."""
    recipes = []
    done_total = total = 0
    index = state.index
    prerequisites, uses, untouched = _static_parts(state)
    for recipe_number, recipe in enumerate(state.kitchen.recipes):
        steps = []
        done = 0
        for spec in recipe.steps:
            key = (recipe_number, spec.index)
            if key not in index.by_step and not any(
                (recipe_number, source) in index.executed for source, _ in spec.time_constraints
            ):
                # Nothing of it scheduled and no window of its opened (no source begun): as at the start.
                steps.append(untouched[key])
                continue
            view = _step_view(state, recipe_number, spec, prerequisites, uses)
            done += view["status"] == "done"
            steps.append(view)
        done_total += done
        total += len(recipe.steps)
        recipes.append(
            {
                "name": recipe.name,
                "complete": done == len(recipe.steps),
                "done": done,
                "total": len(recipe.steps),
                "steps": steps,
            }
        )
    appliances = []
    for name, props in state.appliances:
        users = [
            {
                "recipe": state.kitchen.recipes[c.recipe].name,
                "step": c.step,
                "agent": c.agent,
                "start": c.start,
                "until": c.end,
            }
            for c in state.appliance_users(name)
        ]
        appliances.append({"name": name, "state": dict(props), "in_use": bool(users), "users": users})
    running = [
        {
            "recipe": state.kitchen.recipes[c.recipe].name,
            "step": c.step,
            "agent": c.agent,
            "start": c.start,
            "end": c.end,
            "autonomous": state.spec(c).autonomous,
            "text": state.spec(c).text,
        }
        for c in sorted(state.chunks, key=lambda c: (c.end, c.recipe, c.step))
        if c.start <= state.time < c.end
    ]
    cooks = []
    for number in range(state.agents):
        busy = state.busy_until(number)
        doing = next(
            (
                r
                for r in running
                if r["agent"] == number and not r["autonomous"] and r["end"] == busy and busy > state.time
            ),
            None,
        )
        cooks.append(
            {
                "agent": number,
                "busy_until": busy,
                "busy": busy > state.time,
                "doing": {"recipe": doing["recipe"], "step": doing["step"]} if doing else None,
            }
        )
    return {
        "time": state.time,
        "clock": format_clock(state.time),
        "agent": None,
        "agents": state.agents,
        "time_constraints": state.options.time_constraints,
        "status": state.status,
        "reason": state.reason,
        "progress": {"done": done_total, "total": total},
        "recipes": recipes,
        "appliances": appliances,
        "running": running,
        "cooks": cooks,
        "next": None,
        "deadlines": _deadlines(state),
    }


def _value_text(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _appliance_text(data: dict[str, Any]) -> str:
    parts = []
    for appliance in data["appliances"]:
        props = ", ".join(f"{key} {_value_text(value)}" for key, value in appliance["state"].items())
        use = (
            "in use by "
            + ", ".join(
                f"step {u['step']} of {u['recipe']} until {format_clock(u['until'])}" for u in appliance["users"]
            )
            if appliance["in_use"]
            else "free"
        )
        parts.append(f"{appliance['name']} {use}" + (f" ({props})" if props else ""))
    return "; ".join(parts)


def observation_text(state: RecipesState, agent: int, data: dict[str, Any]) -> str:
    lines = [f"The current time is {data['clock']}."]
    if state.over:
        lines.append(f"The episode has ended ({state.status}): {state.reason}")
    lines.append(f"Appliances: {_appliance_text(data)}.")
    autonomous = [r for r in data["running"] if r["autonomous"]]
    if autonomous:
        lines.append(
            "Running autonomous steps: "
            + ", ".join(f"step {r['step']} of {r['recipe']} (finishes at {format_clock(r['end'])})" for r in autonomous)
            + "."
        )
    cook = data["cooks"][agent] if 0 <= agent < len(data["cooks"]) else None
    if cook and cook["busy"]:
        doing = cook["doing"] or {}
        until = format_clock(cook["busy_until"])
        lines.append(f"You are busy with step {doing.get('step')} of {doing.get('recipe')} until {until}.")
    lines.append(f"Progress: {data['progress']['done']} of {data['progress']['total']} steps complete.")
    if state.options.time_constraints and data["deadlines"]:
        lines.append(
            "Deadlines: "
            + ", ".join(
                f"step {d['step']} of {d['recipe']} must start by {format_clock(d['deadline'])}"
                for d in data["deadlines"]
            )
            + "."
        )
    if state.options.hints:
        if data["next"]:
            lines.append(
                " ".join(
                    f"Steps that could start at {group['clock']}: "
                    + ", ".join(f"step {s['step']} of {s['recipe']}" for s in group["steps"])
                    + "."
                    for group in data["next"]
                )
            )
        elif not state.over:
            lines.append("No step can start at the moments shown; wait for running steps to finish.")
    return " ".join(lines)


def describe_step(state: RecipesState, recipe: int, step: int) -> str:
    return step_name(state, recipe, step)
