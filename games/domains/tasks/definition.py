"""Scenario definitions of the tasks domain: validating, composing several tasks, compiling.

A **definition** (what ``games.Scenario.definition`` stores and ``RULES.initial_state`` reads) is::

    {
      "format": "tasks-v1",
      "title": "Make tea",                      # optional
      "constrained": true,                      # optional: one of each appliance in the whole game
      "tasks": [                                # one task, or several played at once
        {
          "name": "make-tea",                   # short id, unique within the definition
          "title": "Make tea",
          "goal": "Brew a pot of tea and pour a cup.",
          "appliances": ["kettle"],             # objects shared between combined tasks
          "actions": [
            {"name": "boil water in kettle", "minutes": 4, "background": true, "requires": []},
            {"name": "wash cup", "minutes": 2, "background": false, "requires": []},
            ...
          ]
        }
      ]
    }

An action ``name`` is its text: ``verb OBJ`` or ``verb OBJ1 prep OBJ2`` (objects are single words,
underscores for spaces). ``background`` marks a type 2 action (it lets the agent go after its first
minute); ``requires`` names actions of the same task that must be complete first.

``compose([definition, ...])`` puts several definitions' tasks into one (the paper's #Task=2/3
settings). ``compile_definition`` turns a definition into the indexed form the rules play, applying
SPEC section 2's object rules:

- an object named by more than one task is one object per task, renamed ``<name>_<n>`` where ``n``
  is the task's position (1-based): ``dish_1``, ``dish_2``; objects unique to one task keep their name;
- appliances are shared by all tasks. A task brings as many of an appliance as it has type 2 actions
  using it (at least one), so cooking2 has two fryers; combined tasks pool theirs. In
  resource-constrained mode (the ``constrained`` game option, or ``"constrained": true`` in the
  definition: a generated instance whose optimum was computed so) there is exactly one of each
  appliance in the whole scenario.
- an ingredient is only ever added to its own task's container, because the container is renamed
  per task (``add rice to dish_1``).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from typing import Any

from games.domains.tasks.vocabulary import state_sentences

FORMAT = "tasks-v1"
MAX_MINUTES = 120


class DefinitionError(ValueError):
    """A definition that cannot be played; the message names the task, action and field at fault."""


@dataclass(frozen=True, slots=True)
class Action:
    index: int
    task: int
    text: str  # with renamed objects, what players type: "add rice to dish_1"
    source_text: str  # as written in the task: "add rice to dish"
    verb: str
    objects: tuple[str, ...]  # object names after renaming
    prep: str | None
    minutes: int
    background: bool
    requires: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Object:
    name: str  # unique in the scenario, e.g. "dish_1"
    label: str  # as the task calls it, e.g. "dish"
    task: int | None  # None for shared appliances
    appliance: bool
    capacity: int  # how many instances (appliance pools); 1 for everything else


@dataclass(frozen=True, slots=True)
class Task:
    index: int
    name: str
    title: str
    goal: str
    actions: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Compiled:
    """A definition indexed for play. Immutable and shared by every state of an episode; compared
    and hashed by identity (the rules cache one per definition), so planners can cache per scenario."""

    definition: Mapping[str, Any]
    constrained: bool
    tasks: tuple[Task, ...]
    actions: tuple[Action, ...]
    objects: tuple[Object, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "object_index", {obj.name: obj for obj in self.objects})
        object.__setattr__(self, "by_text", {action.text: action for action in self.actions})
        object.__setattr__(self, "total_minutes", sum(action.minutes for action in self.actions))
        object.__setattr__(self, "verbs", frozenset(action.verb for action in self.actions))
        object.__setattr__(
            self, "requires_text", tuple(tuple(self.actions[r].text for r in a.requires) for a in self.actions)
        )
        object.__setattr__(
            self,
            "completed_messages",
            tuple(
                f"{a.text} is complete: {state_sentences(a.verb, a.objects, a.prep, a.text)[0]}." for a in self.actions
            ),
        )

    object_index: dict[str, Object] = field(init=False, repr=False, compare=False)
    by_text: dict[str, Action] = field(init=False, repr=False, compare=False)
    total_minutes: int = field(init=False, repr=False, compare=False)
    verbs: frozenset[str] = field(init=False, repr=False, compare=False)
    requires_text: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)  # by action index
    # What the completion event of each action says (by action index).
    completed_messages: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # Action texts that parse to their own action, found on first use (``rules._exact_actions``).
    exact_actions: dict[str, Action] | None = field(default=None, init=False, repr=False, compare=False)


def split_action(text: str) -> tuple[str, tuple[str, ...], str | None]:
    """``"cook rice in pot"`` -> ``("cook", ("rice", "pot"), "in")``; raises ValueError otherwise."""
    words = text.split()
    if len(words) == 2:
        return words[0], (words[1],), None
    if len(words) == 4:
        return words[0], (words[1], words[3]), words[2]
    raise ValueError(f"'{text}' is not 'verb object' or 'verb object prep object'")


def join_action(verb: str, objects: Sequence[str], prep: str | None) -> str:
    if len(objects) == 1:
        return f"{verb} {objects[0]}"
    return f"{verb} {objects[0]} {prep} {objects[1]}"


def validate(definition: Any) -> None:
    """Raise DefinitionError naming the field at fault if ``definition`` is not a playable definition."""
    if not isinstance(definition, Mapping):
        raise DefinitionError("a tasks definition must be a JSON object with a 'tasks' list")
    if definition.get("format", FORMAT) != FORMAT:
        raise DefinitionError(f"format: expected '{FORMAT}', got {definition.get('format')!r}")
    if not isinstance(definition.get("constrained", False), bool):
        raise DefinitionError("constrained: must be true (one of each appliance in the whole game) or false")
    tasks = definition.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise DefinitionError("tasks: must be a non-empty list of tasks")
    names: set[str] = set()
    for position, task in enumerate(tasks):
        where = f"tasks[{position}]"
        if not isinstance(task, Mapping):
            raise DefinitionError(f"{where}: must be an object")
        name = task.get("name")
        if not isinstance(name, str) or not name.strip():
            raise DefinitionError(f"{where}.name: must be a non-empty string")
        if name in names:
            raise DefinitionError(f"{where}.name: '{name}' appears twice; combine a task with itself only once")
        names.add(name)
        where = f"task '{name}'"
        for key in ("title", "goal"):
            if not isinstance(task.get(key, ""), str):
                raise DefinitionError(f"{where}.{key}: must be a string")
        appliances = task.get("appliances", [])
        if not isinstance(appliances, list) or not all(isinstance(a, str) for a in appliances):
            raise DefinitionError(f"{where}.appliances: must be a list of object names")
        actions = task.get("actions")
        if not isinstance(actions, list) or not actions:
            raise DefinitionError(f"{where}.actions: must be a non-empty list")
        texts: set[str] = set()  # a set: a list made the check quadratic (50,000 actions: 17 s)
        for number, action in enumerate(actions):
            at = f"{where}.actions[{number}]"
            if not isinstance(action, Mapping):
                raise DefinitionError(f"{at}: must be an object")
            text = action.get("name")
            if not isinstance(text, str):
                raise DefinitionError(f"{at}.name: must be a string like 'wash cup' or 'cook rice in pot'")
            try:
                split_action(text)
            except ValueError as error:
                raise DefinitionError(f"{at}.name: {error}") from None
            if text != " ".join(text.lower().split()):
                raise DefinitionError(f"{at}.name: '{text}' must be lower case with single spaces")
            if text in texts:
                raise DefinitionError(f"{at}.name: '{text}' appears twice in the task")
            texts.add(text)
            minutes = action.get("minutes")
            if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= MAX_MINUTES:
                raise DefinitionError(f"{at}.minutes: must be a whole number of minutes from 1 to {MAX_MINUTES}")
            if not isinstance(action.get("background", False), bool):
                raise DefinitionError(f"{at}.background: must be true or false")
            requires = action.get("requires", [])
            if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
                raise DefinitionError(f"{at}.requires: must be a list of action names")
        for number, action in enumerate(actions):
            for needed in action.get("requires", []):
                if needed not in texts:
                    close = difflib.get_close_matches(str(needed), sorted(texts), n=1, cutoff=0.6)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    raise DefinitionError(
                        f"{where}.actions[{number}].requires: '{needed}' is not an action of this task{hint}"
                    )
        _check_acyclic(where, {a["name"]: list(a.get("requires", [])) for a in actions})


def check_new(definition: Mapping[str, Any]) -> None:
    """What a definition written now must satisfy besides ``validate``, which also compiles the
    definitions stored before (so it keeps admitting them): each action lists a prerequisite once
    (a list is stored as written: 200,000 repeats of one were saved). ``definition`` is valid."""
    for task in definition["tasks"]:
        for number, action in enumerate(task["actions"]):
            requires = action.get("requires", [])
            if len(set(requires)) < len(requires):
                twice = next(r for r, n in Counter(requires).items() if n > 1)
                raise DefinitionError(f"task '{task['name']}'.actions[{number}].requires: '{twice}' is listed twice")


def _check_acyclic(where: str, requires: dict[str, list[str]]) -> None:
    # graphlib walks without recursion: a chain of 1,200 prerequisites overflowed Python's stack
    try:
        TopologicalSorter(requires).prepare()
    except CycleError as error:
        cycle = " -> ".join(reversed(error.args[1]))  # each action, then the one it requires
        raise DefinitionError(f"{where}: the prerequisites go round in a circle: {cycle}") from None


def compose(definitions: Sequence[Mapping[str, Any]], *, title: str | None = None) -> dict[str, Any]:
    """One definition playing every task of ``definitions`` at once, in order.

    The tasks are copied unchanged; renaming happens when the definition is compiled, so the
    composed definition stays readable and a single task composes to itself.
    """
    if not definitions:
        raise DefinitionError("compose: give at least one definition")
    tasks: list[dict[str, Any]] = []
    for definition in definitions:
        validate(definition)
        tasks.extend(dict(task) for task in definition["tasks"])
    composed: dict[str, Any] = {"format": FORMAT, "tasks": tasks}
    if any(definition.get("constrained") for definition in definitions):
        composed["constrained"] = True
    composed["title"] = title or " + ".join(task.get("title") or task["name"] for task in tasks)
    validate(composed)
    return composed


def compile_definition(definition: Mapping[str, Any], *, constrained: bool = False) -> Compiled:
    """Index a definition for play, renaming per-task objects and pooling appliances (one of each
    when ``constrained`` or the definition says ``"constrained": true``)."""
    validate(definition)
    constrained = constrained or bool(definition.get("constrained", False))
    raw_tasks = definition["tasks"]
    appliances: set[str] = set()
    for task in raw_tasks:
        appliances.update(task.get("appliances", []))

    # Which tasks name each (non-appliance) object decides whether it is renamed.
    users: dict[str, set[int]] = {}
    for position, task in enumerate(raw_tasks):
        for action in task["actions"]:
            for name in split_action(action["name"])[1]:
                users.setdefault(name, set()).add(position)

    def rename(name: str, position: int) -> str:
        if name in appliances or len(users[name]) == 1:
            return name
        return f"{name}_{position + 1}"

    pool: dict[str, int] = {}
    objects: dict[str, Object] = {}
    actions: list[Action] = []
    tasks: list[Task] = []
    for position, task in enumerate(raw_tasks):
        first = len(actions)
        indices = {a["name"]: first + i for i, a in enumerate(task["actions"])}
        per_task: dict[str, int] = {}
        for action in task["actions"]:
            verb, names, prep = split_action(action["name"])
            renamed = tuple(rename(name, position) for name in names)
            for name, new in zip(names, renamed, strict=True):
                if name in appliances:
                    if action.get("background", False):
                        per_task[name] = per_task.get(name, 0) + 1
                    else:
                        per_task.setdefault(name, 0)
                elif new not in objects:
                    objects[new] = Object(new, name, position, appliance=False, capacity=1)
            actions.append(
                Action(
                    index=len(actions),
                    task=position,
                    text=join_action(verb, renamed, prep),
                    source_text=action["name"],
                    verb=verb,
                    objects=renamed,
                    prep=prep,
                    minutes=action["minutes"],
                    background=bool(action.get("background", False)),
                    requires=tuple(indices[r] for r in action.get("requires", [])),
                )
            )
        for name, count in per_task.items():
            pool[name] = pool.get(name, 0) + max(count, 1)
        tasks.append(
            Task(
                index=position,
                name=task["name"],
                title=task.get("title") or task["name"],
                goal=task.get("goal", ""),
                actions=tuple(range(first, len(actions))),
            )
        )
    for name, count in sorted(pool.items()):
        if name in objects:
            raise DefinitionError(f"'{name}' is an appliance in one task and a plain object in another")
        objects[name] = Object(name, name, None, appliance=True, capacity=1 if constrained else count)
    seen: set[str] = set()
    for action in actions:
        if action.text in seen:
            raise DefinitionError(f"two tasks both have '{action.text}' on shared objects only; rename one")
        seen.add(action.text)
    return Compiled(
        definition=definition,
        constrained=constrained,
        tasks=tuple(tasks),
        actions=tuple(actions),
        objects=tuple(objects.values()),
    )
