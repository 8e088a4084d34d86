"""The changing part of a recipes game and the questions asked of it.

A state is an immutable value: the kitchen (recipes, appliances), the clock in whole seconds, every
chunk of work started so far (a non-interruptible step is one chunk; an interruptible step may be
several), the appliances' properties, and the bookkeeping for the end rules. Whether a step is
running, paused or complete is derived from its chunks, so it cannot go out of step with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.domains.recipes.kitchen import Kitchen, Props, StepSpec, load_kitchen
from games.engine.compiled import CompiledScenarios
from games.engine.values import OWN_CACHE, quick_init

# Each scenario's Kitchen, parsed and validated once per process (games share the immutable value).
KITCHENS: CompiledScenarios[Kitchen] = CompiledScenarios(load_kitchen)

PLAYING, SUCCESS, FAILED, STOPPED, TRUNCATED = "playing", "success", "failed", "stopped", "truncated"


@quick_init
@dataclass(frozen=True, slots=True)
class Chunk:
    """``agent`` worked on (or, for an autonomous step, started) step ``step`` of recipe ``recipe``
    over [start, end)."""

    recipe: int
    step: int
    agent: int
    start: int
    end: int


class ChunkIndex:
    """The chunks of a state grouped by step, with each step's scheduled seconds and last end: the
    questions the rules ask hundreds of times per action answered without scanning every chunk.

    Built lazily from one ``chunks`` tuple and never changed; a state derived with other chunks
    gets its own (``RecipesState.index`` checks which tuple an index was built from).
    """

    __slots__ = ("by_step", "chunks", "executed", "last_end")

    def __init__(self, chunks: tuple[Chunk, ...]) -> None:
        self.chunks = chunks
        by_step: dict[tuple[int, int], list[Chunk]] = {}
        for chunk in chunks:
            by_step.setdefault((chunk.recipe, chunk.step), []).append(chunk)
        self.by_step = by_step
        self.executed = {key: sum(c.end - c.start for c in found) for key, found in by_step.items()}
        self.last_end = {key: max(c.end for c in found) for key, found in by_step.items()}

    def plus(self, chunk: Chunk, chunks: tuple[Chunk, ...]) -> ChunkIndex:
        """The index of ``chunks`` = this index's chunks followed by ``chunk`` (without a rescan)."""
        new = ChunkIndex.__new__(ChunkIndex)
        new.chunks = chunks
        key = (chunk.recipe, chunk.step)
        new.by_step = {**self.by_step, key: [*self.by_step.get(key, ()), chunk]}
        new.executed = {**self.executed, key: self.executed.get(key, 0) + chunk.end - chunk.start}
        new.last_end = {**self.last_end, key: max(self.last_end.get(key, chunk.end), chunk.end)}
        return new


@dataclass(frozen=True, slots=True)
class Options:
    time_constraints: bool = True
    hints: bool = False
    max_rejections: int = 10
    max_repeats: int = 3

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None) -> Options:
        raw = raw or {}
        constraints = raw.get("time_constraints", True)
        if isinstance(constraints, str):
            constraints = constraints.strip().lower() not in {"off", "false", "0", "no"}
        return cls(
            time_constraints=bool(constraints),
            hints=bool(raw.get("hints", False)),
            max_rejections=int(raw.get("max_rejections", 10)),
            max_repeats=int(raw.get("max_repeats", 3)),
        )


@dataclass(frozen=True, slots=True)
class RecipesState:
    kitchen: Kitchen
    options: Options
    agents: int = 1
    time: int = 0
    chunks: tuple[Chunk, ...] = ()
    appliances: tuple[tuple[str, Props], ...] = ()
    rejections: tuple[int, ...] = (0,)
    last_rejected: tuple[str, ...] = ("",)
    repeats: tuple[int, ...] = (0,)
    accepted: int = 0
    status: str = PLAYING
    reason: str = ""
    ended_at: int | None = None
    # A cache derived from ``chunks`` (not part of the value: not compared, not serialised). ``replace``
    # carries it over; ``index`` rebuilds it when the chunks it was built from are not this state's.
    cached_index: ChunkIndex | None = field(default=None, compare=False, repr=False)
    # The observation's trial advances of this state to upcoming moments, shared by every seat's
    # observation (see observation.next_steps); valid only for the very same chunks and appliances.
    cached_advances: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    # What every cook's observation shares (``observation.observation_data``), built once per state.
    observed: dict[str, Any] | None = field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)
    # The hints' verdicts per step, moment and busy cook (``observation.next_steps``), per state.
    hinted: dict[Any, Any] | None = field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)
    # ``execution.next_spoil`` of this state, in a 1-tuple (its answer may be None), per state.
    spoil_cache: tuple[Any] | None = field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)

    # --- questions about steps -------------------------------------------------------------------

    @property
    def index(self) -> ChunkIndex:
        found = self.cached_index
        if found is None or found.chunks is not self.chunks:
            found = ChunkIndex(self.chunks)
            object.__setattr__(self, "cached_index", found)
        return found

    def step_chunks(self, recipe: int, step: int) -> list[Chunk]:
        return list(self.index.by_step.get((recipe, step), ()))

    def executed(self, recipe: int, step: int) -> int:
        """Seconds of the step done or under way (a running chunk counts in full)."""
        return self.index.executed.get((recipe, step), 0)

    def remaining(self, recipe: int, step: int) -> int:
        return self.kitchen.recipes[recipe].steps[step].duration - self.index.executed.get((recipe, step), 0)

    def running_chunk(self, recipe: int, step: int, at: int | None = None) -> Chunk | None:
        moment = self.time if at is None else at
        for chunk in self.index.by_step.get((recipe, step), ()):
            if chunk.start <= moment < chunk.end:
                return chunk
        return None

    def finished_at(self, recipe: int, step: int) -> int | None:
        """When the step's last chunk ends, if its whole duration has been scheduled."""
        index = self.index
        key = (recipe, step)
        executed = index.executed.get(key)
        if executed is None or executed < self.kitchen.recipes[recipe].steps[step].duration:
            return None
        return index.last_end[key]

    def is_complete(self, recipe: int, step: int, at: int | None = None) -> bool:
        """Complete = the whole duration done AND its last chunk has ended (an autonomous step is
        not complete when it starts: one of the reference implementation's faults)."""
        finished = self.finished_at(recipe, step)
        return finished is not None and finished <= (self.time if at is None else at)

    def status_of(self, recipe: int, step: int) -> str:
        """``done``, ``running``, ``paused`` (part done, nothing running) or ``todo``."""
        if self.is_complete(recipe, step):
            return "done"
        if self.running_chunk(recipe, step) is not None:
            return "running"
        return "paused" if self.executed(recipe, step) else "todo"

    def all_complete(self) -> bool:
        if len(self.index.executed) < sum(len(recipe.steps) for recipe in self.kitchen.recipes):
            return False  # a step with no chunk at all is not complete
        return all(
            self.is_complete(recipe_number, step.index)
            for recipe_number, recipe in enumerate(self.kitchen.recipes)
            for step in recipe.steps
        )

    # --- questions about cooks and appliances ---------------------------------------------------

    def busy_until(self, agent: int) -> int:
        """The end of the agent's continuous chunk running now (or the current time if free)."""
        until = self.time
        for chunk in self.chunks:
            if chunk.agent == agent and chunk.end > self.time and not self.spec(chunk).autonomous:
                until = max(until, chunk.end)
        return until

    def spec(self, chunk: Chunk) -> StepSpec:
        return self.kitchen.step(chunk.recipe, chunk.step)

    def appliance_props(self, name: str) -> dict[str, Any]:
        for appliance, props in self.appliances:
            if appliance == name:
                return dict(props)
        return {}

    def appliance_users(self, name: str, at: int | None = None) -> list[Chunk]:
        moment = self.time if at is None else at
        return [
            chunk
            for chunk in self.chunks
            if chunk.start <= moment < chunk.end and any(use.appliance == name for use in self.spec(chunk).uses)
        ]

    @property
    def over(self) -> bool:
        return self.status != PLAYING


def initial_state(
    definition: Mapping[str, Any], *, agents: int = 1, options: Mapping[str, Any] | None = None
) -> RecipesState:
    kitchen = KITCHENS.get(definition)
    count = max(1, int(agents))
    return RecipesState(
        kitchen=kitchen,
        options=Options.from_mapping(options),
        agents=count,
        appliances=kitchen.appliances,
        rejections=(0,) * count,
        last_rejected=("",) * count,
        repeats=(0,) * count,
    )


def dump_state(state: RecipesState) -> dict[str, Any]:
    definition = state.kitchen.to_json()
    return {
        "definition": definition,
        "scenario_key": KITCHENS.dump_key(state.kitchen, definition),
        "options": {
            "time_constraints": state.options.time_constraints,
            "hints": state.options.hints,
            "max_rejections": state.options.max_rejections,
            "max_repeats": state.options.max_repeats,
        },
        "agents": state.agents,
        "time": state.time,
        "chunks": [[c.recipe, c.step, c.agent, c.start, c.end] for c in state.chunks],
        "appliances": {name: dict(props) for name, props in state.appliances},
        "rejections": list(state.rejections),
        "last_rejected": list(state.last_rejected),
        "repeats": list(state.repeats),
        "accepted": state.accepted,
        "status": state.status,
        "reason": state.reason,
        "ended_at": state.ended_at,
    }


def load_state(raw: Mapping[str, Any]) -> RecipesState:
    count = max(1, int(raw["agents"]))
    return RecipesState(
        kitchen=KITCHENS.get(raw["definition"], key=raw.get("scenario_key")),
        options=Options.from_mapping(raw["options"]),
        agents=count,
        time=int(raw["time"]),
        chunks=tuple(Chunk(*(int(value) for value in item)) for item in raw["chunks"]),
        appliances=tuple(
            sorted((str(name), tuple(sorted(props.items()))) for name, props in raw["appliances"].items())
        ),
        rejections=tuple(int(n) for n in raw["rejections"]),
        last_rejected=tuple(str(a) for a in raw["last_rejected"]),
        repeats=tuple(int(n) for n in raw["repeats"]),
        accepted=int(raw["accepted"]),
        status=str(raw["status"]),
        reason=str(raw["reason"]),
        ended_at=None if raw["ended_at"] is None else int(raw["ended_at"]),
    )
