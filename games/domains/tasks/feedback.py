"""Why an action cannot start, in words that tell the player what to do (SPEC section 2 feedback kinds)."""

from __future__ import annotations

from games.domains.tasks.definition import Action, Compiled
from games.domains.tasks.state import Run, TasksState
from games.domains.tasks.text import Command
from games.domains.tasks.vocabulary import KNOWN_VERBS, state_sentences
from games.engine.types import Feedback

# Feedback kinds (SPEC section 2), plus agent_busy and game_over which cost nothing.
INVALID_ACTION = "invalid_action"
UNKNOWN_OBJECT = "unknown_object"
OBJECT_BUSY = "object_busy"
WRONG_OBJECT = "wrong_object"
DEPENDENCY = "dependency"
ALREADY_DONE = "already_done"
AGENT_BUSY = "agent_busy"
GAME_OVER = "game_over"


def startable(state: TasksState) -> list[Action]:
    """Actions whose prerequisites are complete and whose objects are free, in definition order."""
    cached = state.cached_startable
    if cached is not None and cached[0] is state.done and cached[1] is state.running:
        return list(cached[2])
    found = _startable(state)
    object.__setattr__(state, "cached_startable", (state.done, state.running, tuple(found)))
    return found


def _startable(state: TasksState) -> list[Action]:
    scenario = state.scenario
    running = {run.action for run in state.running}
    # Count the uses of each object once, rather than rescanning the running actions per candidate.
    in_use: dict[str, int] = {}
    for run in state.running:
        for name in scenario.actions[run.action].objects:
            in_use[name] = in_use.get(name, 0) + 1
    capacity = scenario.object_index
    return [
        action
        for action in scenario.actions
        if action.index not in state.done
        and action.index not in running
        and all(r in state.done for r in action.requires)
        and all(in_use.get(name, 0) < capacity[name].capacity for name in action.objects)
    ]


def busy_objects(state: TasksState, action: Action) -> list[tuple[str, list[Run]]]:
    """The objects of ``action`` that are in use, with the runs holding them."""
    scenario = state.scenario
    busy = []
    for name in action.objects:
        holders = [run for run in state.running if name in scenario.actions[run.action].objects]
        if len(holders) >= scenario.object_index[name].capacity:
            busy.append((name, holders))
    return busy


def invalid(state: TasksState, text: str) -> Feedback:
    return _invalid(state.scenario, text)


def _invalid(scenario: Compiled, text: str) -> Feedback:
    verbs = sorted(scenario.verbs)
    example = scenario.actions[0].text
    return Feedback(
        INVALID_ACTION,
        f"'{text}' is not an action. Type 'verb object', 'verb object prep object' or 'wait' "
        f"(e.g. '{example}'). Verbs here: {', '.join(verbs)}.",
    )


def resolve(state: TasksState, command: Command) -> tuple[Feedback | None, Action | None]:
    return resolve_command(state.scenario, command)


def resolve_command(scenario: Compiled, command: Command) -> tuple[Feedback | None, Action | None]:
    """The scenario's action ``command`` names, or why there is none."""
    if command.verb not in scenario.verbs and command.verb not in KNOWN_VERBS:
        return _invalid(scenario, command.text), None
    for name in command.objects:
        if name not in scenario.object_index:
            variants = [obj for obj in scenario.objects if obj.label == name]
            if variants:
                options = " or ".join(f"{obj.name} ({scenario.tasks[obj.task or 0].name})" for obj in variants)
                message = f"Each task has its own {name}: say {options}."
            else:
                names = ", ".join(obj.name for obj in scenario.objects)
                message = f"There is no {name} here. Objects: {names}."
            return Feedback(UNKNOWN_OBJECT, message), None
    found = scenario.by_text.get(command.text)
    if found is None:  # accept any preposition: "cook rice into pot" means the same thing
        found = next((a for a in scenario.actions if a.verb == command.verb and a.objects == command.objects), None)
    if found is None:
        same_verb = [a.text for a in scenario.actions if a.verb == command.verb]
        with_object = [a.text for a in scenario.actions if command.objects[0] in a.objects]
        if same_verb:
            hint = f"Actions with '{command.verb}': {', '.join(same_verb)}."
        else:
            hint = f"Nothing here can be done with '{command.verb}'."
        if with_object:
            hint += f" With {command.objects[0]} you can: {', '.join(with_object)}."
        return Feedback(WRONG_OBJECT, f"You cannot '{command.text}'. {hint}"), None
    return None, found


def cannot_start(state: TasksState, action: Action) -> Feedback | None:
    scenario = state.scenario
    if action.index in state.done:
        sentence = state_sentences(action.verb, action.objects, action.prep, action.text)[0]
        return Feedback(ALREADY_DONE, f"{action.text} is already done ({sentence}); pick another action.")
    for run in state.running:
        if run.action == action.index:
            return Feedback(
                ALREADY_DONE,
                f"{action.text} is already under way (agent {run.agent + 1}, until t={run.end}); pick another action.",
            )
    missing = []
    for index in action.requires:
        if index in state.done:
            continue
        needed = scenario.actions[index]
        before = state_sentences(needed.verb, needed.objects, needed.prep, needed.text)[1]
        under_way = next((run for run in state.running if run.action == index), None)
        if under_way is not None:
            missing.append(f"{before} ('{needed.text}' finishes at t={under_way.end})")
        else:
            missing.append(f"{before} (do '{needed.text}' first)")
    if missing:
        return Feedback(DEPENDENCY, f"You cannot {action.text} yet: {'; '.join(missing)}.")
    busy = busy_objects(state, action)
    if busy:
        parts = []
        for name, holders in busy:
            uses = ", ".join(f"{scenario.actions[run.action].text} until t={run.end}" for run in holders)
            if scenario.object_index[name].capacity > 1:
                parts.append(f"all {len(holders)} {name}s are in use ({uses})")
            else:
                parts.append(f"{name} is in use by {uses}")
        text = "; ".join(parts)
        return Feedback(OBJECT_BUSY, text[0].upper() + text[1:] + ". Do something else or wait.")
    return None
