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
from games.engine.options import checked, switch, whole
from games.engine.values import OWN_CACHE, evolver, quick_init

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
    """The chunks of a state grouped by step, with each step's scheduled seconds and last end, each
    cook's last continuous chunk and each appliance's chunks: the questions the rules ask hundreds
    of times per action answered without scanning every chunk.

    Built lazily from one ``chunks`` tuple and never changed; a state derived with other chunks
    gets its own (``RecipesState.index`` checks which tuple an index was built from), and ``plus``
    derives the index of one more chunk without a rescan.
    """

    __slots__ = ("by_appliance", "by_step", "chunks", "cook_end", "executed", "kitchen", "last_end", "scheduled")

    def __init__(self, chunks: tuple[Chunk, ...], kitchen: Kitchen) -> None:
        self.chunks = chunks
        self.kitchen = kitchen
        self.by_step: dict[tuple[int, int], list[Chunk]] = {}
        self.executed: dict[tuple[int, int], int] = {}
        self.last_end: dict[tuple[int, int], int] = {}
        #: agent -> the latest end of the agent's continuous (not autonomous) chunks
        self.cook_end: dict[int, int] = {}
        #: appliance -> the chunks of steps that use it
        self.by_appliance: dict[str, list[Chunk]] = {}
        #: how many steps have their whole duration scheduled
        self.scheduled = 0
        for chunk in chunks:
            self._add(chunk)

    def _add(self, chunk: Chunk) -> None:
        key = (chunk.recipe, chunk.step)
        spec = self.kitchen.recipes[chunk.recipe].steps[chunk.step]
        self.by_step[key] = [*self.by_step.get(key, ()), chunk]
        before = self.executed.get(key, 0)
        after = self.executed[key] = before + chunk.end - chunk.start
        if before < spec.duration <= after:
            self.scheduled += 1
        last = self.last_end.get(key)
        if last is None or chunk.end > last:
            self.last_end[key] = chunk.end
        if not spec.autonomous and chunk.end > self.cook_end.get(chunk.agent, chunk.end - 1):
            self.cook_end[chunk.agent] = chunk.end
        for use in spec.uses:
            self.by_appliance[use.appliance] = [*self.by_appliance.get(use.appliance, ()), chunk]

    def plus(self, chunk: Chunk, chunks: tuple[Chunk, ...]) -> ChunkIndex:
        """The index of ``chunks`` = this index's chunks followed by ``chunk`` (without a rescan).
        Shares this index's dicts that ``chunk`` leaves as they are (none is changed after it is
        built, and ``_add`` replaces the lists it extends instead of appending to them)."""
        new = ChunkIndex.__new__(ChunkIndex)
        new.chunks = chunks
        new.kitchen = kitchen = self.kitchen
        spec = kitchen.recipes[chunk.recipe].steps[chunk.step]
        new.by_step = self.by_step.copy()
        new.executed = self.executed.copy()
        new.last_end = self.last_end.copy()
        new.cook_end = self.cook_end if spec.autonomous else self.cook_end.copy()
        new.by_appliance = self.by_appliance.copy() if spec.uses else self.by_appliance
        new.scheduled = self.scheduled
        new._add(chunk)
        return new


@dataclass(frozen=True, slots=True)
class Options:
    time_constraints: bool = True
    hints: bool = False
    max_rejections: int = 10
    max_repeats: int = 3

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None) -> Options:
        """Options from a game's checked options (``OPTIONS``) or a dumped state's."""
        raw = raw or {}
        return cls(
            time_constraints=bool(raw.get("time_constraints", True)),
            hints=bool(raw.get("hints", False)),
            max_rejections=int(raw.get("max_rejections", 10)),
            max_repeats=int(raw.get("max_repeats", 3)),
        )


@quick_init
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
            found = ChunkIndex(self.chunks, self.kitchen)
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
        """Every step's whole duration scheduled and every chunk ended."""
        index = self.index
        if index.scheduled < self.kitchen.step_count:
            return False
        return all(end <= self.time for end in index.last_end.values())

    # --- questions about cooks and appliances ---------------------------------------------------

    def busy_until(self, agent: int, at: int | None = None) -> int:
        """The end of the agent's continuous chunk running now (or at ``at``), or that moment if free."""
        moment = self.time if at is None else at
        end = self.index.cook_end.get(agent)
        return moment if end is None or end < moment else end

    def spec(self, chunk: Chunk) -> StepSpec:
        return self.kitchen.step(chunk.recipe, chunk.step)

    def appliance_props(self, name: str) -> dict[str, Any]:
        for appliance, props in self.appliances:
            if appliance == name:
                return dict(props)
        return {}

    def appliance_users(self, name: str, at: int | None = None) -> list[Chunk]:
        moment = self.time if at is None else at
        return [chunk for chunk in self.index.by_appliance.get(name, ()) if chunk.start <= moment < chunk.end]

    @property
    def over(self) -> bool:
        return self.status != PLAYING


# What a game's options may set, and what each must be (games.engine.options).
OPTIONS = {
    "time_constraints": switch,
    "hints": switch,
    "max_rejections": whole(0, 1_000),  # 0 turns a limit off
    "max_repeats": whole(0, 1_000),
}

#: ``evolve`` for a RecipesState, without looking up the class's evolver on every call.
evolve_state = evolver(RecipesState)


def initial_state(
    definition: Mapping[str, Any], *, agents: int = 1, options: Mapping[str, Any] | None = None
) -> RecipesState:
    chosen = Options.from_mapping(checked("recipes", options, OPTIONS))
    kitchen = KITCHENS.get(definition)
    count = max(1, int(agents))
    return RecipesState(
        kitchen=kitchen,
        options=chosen,
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
