"""Kitchen states: immutable values that serialise exactly (``to_json``/``from_json``).

A state carries its ``Level`` (the static part: locations, recipe book, dishes, τ_int and
lifetimes for the episode's α), so every rule function needs only the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from games.domains.kitchen.commands import Command
from games.domains.kitchen.world import (
    BASE_SET,
    DEFAULT_BETA,
    DEFAULT_MAX_STEPS,
    SERVING_TABLE,
    STORAGE,
    TOOL_KINDS,
    LevelError,
    Recipe,
    derived_parameters,
    location_names,
    parse_recipes,
    recipe_closure,
    unmakeable,
)
from games.engine.compiled import CompiledScenarios
from games.engine.values import quick_init

MAX_AGENTS = 8
MAX_PACE = 100.0  # alpha and beta: above 0, at most this
MAX_STEPS = 10_000  # an episode's length


@dataclass(frozen=True, slots=True)
class Level:
    """The static part of an episode."""

    name: str
    locations: tuple[tuple[str, str], ...]  # (name, kind) in kitchen order
    dishes: tuple[str, ...]
    recipes: Mapping[str, Recipe]
    alpha: float
    beta: float
    task_interval: int
    lifetimes: Mapping[str, int]
    max_steps: int
    seed: int
    # Derived lookups (not serialised): location name -> kind, tool kind -> its recipes.
    kinds: Mapping[str, str] = field(init=False, compare=False, repr=False)
    recipes_by_tool: Mapping[str, tuple[Recipe, ...]] = field(init=False, compare=False, repr=False)
    # (command text, agent) -> its parsed Command: a memo (see execution.command_of), not part of the value.
    parsed: dict[tuple[str, int], Any] = field(init=False, compare=False, repr=False)
    # Location name -> its position in ``locations`` (and in every state's ``tools``).
    positions: Mapping[str, int] = field(init=False, compare=False, repr=False)
    # Tool kind -> every sorted multiset of ingredients that is part of one of its recipes (a put
    # that leaves anything else in the tool makes waste).
    partial_recipes: Mapping[str, frozenset[tuple[str, ...]]] = field(init=False, compare=False, repr=False)
    # Every ingredient some recipe uses.
    ingredients: frozenset[str] = field(init=False, compare=False, repr=False)
    # The commands ``legal_commands`` considers, built once: location -> the gotos to the others,
    # (location, hands full) -> what may be tried there (at storage: the gets, or the put).
    gotos: Mapping[str, tuple[Command, ...]] = field(init=False, compare=False, repr=False)
    tries: Mapping[tuple[str, bool], tuple[Command, ...]] = field(init=False, compare=False, repr=False)
    # Every command a free agent may run (noop, the gotos, what of ``tries`` it may run there), by
    # everything the rules read to decide it: a memo (see execution.legal_commands), not part of the value.
    allowed: dict[tuple[Any, ...], tuple[Command, ...]] = field(init=False, compare=False, repr=False)
    # Order number -> its dish (drawn from the seed and the number alone; see execution.new_order).
    drawn: dict[int, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        by_tool: dict[str, list[Recipe]] = {}
        partial: dict[str, set[tuple[str, ...]]] = {}
        for recipe in self.recipes.values():
            by_tool.setdefault(recipe.tool, []).append(recipe)
            found = partial.setdefault(recipe.tool, set())
            for size in range(1, len(recipe.ingredients) + 1):
                found.update(combinations(recipe.ingredients, size))  # sorted ingredients: sorted parts
        names = [name for name, _ in self.locations]
        tries: dict[tuple[str, bool], tuple[Command, ...]] = {}
        for name, kind in self.locations:
            if kind == STORAGE:
                tries[name, False] = tuple(Command("get", name, item) for item in sorted(BASE_SET))
                tries[name, True] = (Command("put", name),)
            else:
                tries[name, False] = tries[name, True] = (
                    Command("get", name),
                    Command("put", name),
                    Command("activate", name),
                )
        object.__setattr__(self, "kinds", dict(self.locations))
        object.__setattr__(self, "recipes_by_tool", {tool: tuple(found) for tool, found in by_tool.items()})
        object.__setattr__(self, "parsed", {})
        object.__setattr__(self, "allowed", {})
        object.__setattr__(self, "drawn", {})
        object.__setattr__(self, "positions", {name: index for index, name in enumerate(names)})
        object.__setattr__(self, "partial_recipes", {tool: frozenset(found) for tool, found in partial.items()})
        object.__setattr__(
            self, "ingredients", frozenset(item for recipe in self.recipes.values() for item in recipe.ingredients)
        )
        object.__setattr__(
            self,
            "gotos",
            {here: tuple(Command("goto", name) for name in names if name != here) for here in names},
        )
        object.__setattr__(self, "tries", tries)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "locations": [list(pair) for pair in self.locations],
            "dishes": list(self.dishes),
            "recipes": {product: recipe.to_json() for product, recipe in self.recipes.items()},
            "alpha": self.alpha,
            "beta": self.beta,
            "task_interval": self.task_interval,
            "lifetimes": dict(self.lifetimes),
            "max_steps": self.max_steps,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Level:
        return cls(
            name=raw["name"],
            locations=tuple((str(name), str(kind)) for name, kind in raw["locations"]),
            dishes=tuple(raw["dishes"]),
            recipes=parse_recipes(raw["recipes"]),
            alpha=float(raw["alpha"]),
            beta=float(raw["beta"]),
            task_interval=int(raw["task_interval"]),
            lifetimes={str(k): int(v) for k, v in raw["lifetimes"].items()},
            max_steps=int(raw["max_steps"]),
            seed=int(raw["seed"]),
        )


def build_level(scenario: Mapping[str, Any], *, seed: int, options: Mapping[str, Any] | None) -> Level:
    """A Level from a scenario definition (format: docs/scenarios.md, section kitchen) and options
    ``alpha``, ``beta`` and ``max_steps`` (default: the scenario's, else 1.0, 2.5 and 60)."""
    options = dict(options or {})
    kitchen = list(scenario.get("kitchen") or [])
    unknown = [kind for kind in kitchen if kind not in TOOL_KINDS]
    if unknown:
        raise LevelError(f"unknown location kinds {unknown}; known: {', '.join(sorted(TOOL_KINDS))}")
    for required in (STORAGE, SERVING_TABLE):
        if required not in kitchen:
            raise LevelError(f"the kitchen needs a {required}")
    dishes = tuple(scenario.get("dishes") or ())
    if not dishes:
        raise LevelError("the level orders no dishes; list them under 'dishes'")
    recipes = parse_recipes(scenario.get("recipes") or {})
    problems = unmakeable(dishes, kitchen, recipes)
    if problems:
        detail = "; ".join(f"{dish}: needs {', '.join(missing)}" for dish, missing in problems.items())
        raise LevelError(f"this kitchen cannot make every dish ({detail})")
    recipes = recipe_closure(dishes, recipes)
    # A level may carry its own defaults (a gentler warm-up); a game's options override them.
    alpha = float(options.get("alpha", scenario.get("alpha", 1.0)))
    beta = float(options.get("beta", scenario.get("beta", DEFAULT_BETA)))
    if not (0 < alpha <= MAX_PACE and 0 < beta <= MAX_PACE):  # NaN and infinity too
        raise LevelError(f"alpha and beta must be above 0 and at most {MAX_PACE:g}")
    max_steps = options.get("max_steps", scenario.get("max_steps", DEFAULT_MAX_STEPS))
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or not 1 <= max_steps <= MAX_STEPS:
        raise LevelError(f"max_steps must be a whole number from 1 to {MAX_STEPS}")
    derived = derived_parameters(dishes, recipes, alpha, beta)
    return Level(
        name=str(scenario.get("name") or scenario.get("title") or "kitchen"),
        locations=tuple(location_names(kitchen)),
        dishes=dishes,
        recipes=recipes,
        alpha=alpha,
        beta=beta,
        task_interval=derived["task_interval"],
        lifetimes=derived["lifetimes"],
        max_steps=max_steps,
        seed=seed,
    )


def _build(scenario: Mapping[str, Any], seed: int, options: tuple[tuple[str, Any], ...]) -> Level:
    return build_level(scenario, seed=seed, options=dict(options))


# Levels built once per process (per definition, seed and options; every game on them shares the
# value and its memos), and the levels of dumped states, read once per process.
LEVELS: CompiledScenarios[Level] = CompiledScenarios(_build)
LOADED_LEVELS: CompiledScenarios[Level] = CompiledScenarios(Level.from_json)


def level_of(scenario: Mapping[str, Any], *, seed: int, options: Mapping[str, Any] | None) -> Level:
    """``build_level``, compiled once per process."""
    return LEVELS.get(scenario, seed, tuple(sorted((options or {}).items())))


@dataclass(frozen=True, slots=True)
class AgentState:
    location: str
    holding: str | None = None
    busy_until: int = 0  # the agent acts again from this step (chopping keeps it busy)
    accepted: int = 0
    rejected: int = 0
    idle: int = 0  # steps with a noop or with no command at all

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "holding": self.holding,
            "busy_until": self.busy_until,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "idle": self.idle,
        }


@dataclass(frozen=True, slots=True)
class ToolState:
    name: str
    kind: str
    contents: tuple[str, ...] = ()
    busy_until: int = 0  # busy while the current step is before this one
    pickable: bool = False

    def busy(self, step: int) -> bool:
        return step < self.busy_until

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "contents": list(self.contents),
            "busy_until": self.busy_until,
            "pickable": self.pickable,
        }


@quick_init
@dataclass(frozen=True, slots=True)
class Order:
    id: int
    dish: str
    arrived: int
    deadline: int  # the order fails when the step reaches its deadline

    def remaining(self, step: int) -> int:
        return self.deadline - step

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "dish": self.dish, "arrived": self.arrived, "deadline": self.deadline}


@quick_init
@dataclass(frozen=True, slots=True)
class Note:
    """Feedback or a suggestion for one agent, from the last executed step."""

    agent: int
    kind: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "kind": self.kind, "message": self.message}


@dataclass(frozen=True, slots=True)
class KitchenState:
    level: Level
    step: int
    agents: tuple[AgentState, ...]
    tools: tuple[ToolState, ...]  # every location, storage and serving table included
    orders: tuple[Order, ...] = ()  # pending, in arrival order
    orders_made: int = 0  # how many orders have arrived (ids and the dish draw use it)
    completed: int = 0
    failed: int = 0
    thrown_away: int = 0
    #: Commands committed for the current step, in commit order (the execution order).
    commands: tuple[tuple[int, str], ...] = ()
    feedback: tuple[Note, ...] = ()
    suggestions: tuple[Note, ...] = ()
    served: tuple[tuple[int, str, int], ...] = field(default=())  # (order id, dish, step) completed

    def tool(self, name: str) -> ToolState | None:
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None

    def pending_command(self, agent: int) -> str | None:
        for who, command in self.commands:
            if who == agent:
                return command
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level.to_json(),
            "step": self.step,
            "agents": [agent.to_json() for agent in self.agents],
            "tools": [tool.to_json() for tool in self.tools],
            "orders": [order.to_json() for order in self.orders],
            "orders_made": self.orders_made,
            "completed": self.completed,
            "failed": self.failed,
            "thrown_away": self.thrown_away,
            "commands": [[agent, command] for agent, command in self.commands],
            "feedback": [note.to_json() for note in self.feedback],
            "suggestions": [note.to_json() for note in self.suggestions],
            "served": [list(entry) for entry in self.served],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> KitchenState:
        return cls(
            level=LOADED_LEVELS.get(raw["level"]),
            step=int(raw["step"]),
            agents=tuple(AgentState(**agent) for agent in raw["agents"]),
            tools=tuple(
                ToolState(
                    name=tool["name"],
                    kind=tool["kind"],
                    contents=tuple(tool["contents"]),
                    busy_until=int(tool["busy_until"]),
                    pickable=bool(tool["pickable"]),
                )
                for tool in raw["tools"]
            ),
            orders=tuple(Order(**order) for order in raw["orders"]),
            orders_made=int(raw["orders_made"]),
            completed=int(raw["completed"]),
            failed=int(raw["failed"]),
            thrown_away=int(raw["thrown_away"]),
            commands=tuple((int(agent), str(command)) for agent, command in raw["commands"]),
            feedback=tuple(Note(**note) for note in raw["feedback"]),
            suggestions=tuple(Note(**note) for note in raw["suggestions"]),
            served=tuple((int(a), str(b), int(c)) for a, b, c in raw["served"]),
        )
