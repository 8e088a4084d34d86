"""The state of a tasks episode: an immutable value that serialises exactly.

Times are integer minutes. The compiled scenario is shared by every state of an episode (it never
changes); ``dump_state`` stores the definition with the state so a state restores on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from games.domains.tasks.definition import Compiled, compile_definition
from games.engine.compiled import CompiledScenarios
from games.engine.values import OWN_CACHE, evolver, quick_init

# Why an episode ended (``TasksState.ended``).
ALL_DONE = "all tasks complete"
TIME_UP = "time limit reached"
TOO_MANY_REJECTED = "too many rejected actions in a row"


@dataclass(frozen=True, slots=True)
class Options:
    agents: int = 1
    constrained: bool = False
    time_limit: int = 40
    max_rejected_in_row: int = 5  # 0 disables the rule
    rejection_costs_minute: bool = True  # SPEC: in turn-based play a rejected action uses up the minute


@quick_init
@dataclass(frozen=True, slots=True)
class Run:
    """An action in progress or finished: who started it, when, and when it completes."""

    action: int
    agent: int
    start: int
    end: int


@quick_init
@dataclass(frozen=True, slots=True)
class Agent:
    busy_until: int = 0
    doing: str = ""  # the action text, "wait", or "" when free
    rejected_in_row: int = 0


class Counts(NamedTuple):
    """One agent's action-outcome counts (a tuple: bumped on every action, so it must be cheap)."""

    valid: int = 0
    wait: int = 0
    necessary_wait: int = 0
    unnecessary_wait: int = 0
    invalid: int = 0
    unknown_object: int = 0
    wrong_object: int = 0
    dependency: int = 0
    repeated: int = 0
    object_busy: int = 0

    def bump(self, name: str) -> Counts:
        at = _COUNT_AT[name]
        return _new_tuple(Counts, (*self[:at], self[at] + 1, *self[at + 1 :]))


_COUNT_AT = {name: index for index, name in enumerate(Counts._fields)}
_new_tuple = tuple.__new__

# Outcome counters kept per agent: SPEC section 2's action-outcome counts, plus two kinds of ours.
COUNTERS: tuple[str, ...] = Counts._fields


@dataclass(frozen=True, slots=True)
class TasksState:
    scenario: Compiled
    options: Options
    seed: int
    time: int = 0
    agents: tuple[Agent, ...] = ()
    counts: tuple[Counts, ...] = ()
    running: tuple[Run, ...] = ()  # sorted by (end, action)
    finished: tuple[Run, ...] = ()  # in completion order
    done: frozenset[int] = frozenset()
    done_minutes: int = 0
    progress_time: int = 0  # when the current (= highest) progress was first reached
    ended: str = ""
    ended_at: int | None = None
    # What ``feedback.startable`` found for ``(done, running)`` (not part of the value: not compared,
    # not serialised). Copies carry it; it is used only while both tuples are the very same objects.
    cached_startable: tuple[frozenset[int], tuple[Run, ...], tuple[Any, ...]] | None = field(
        default=None, compare=False, repr=False
    )
    # What every agent's observation shares (``view``, ``observation_text``), built once per state.
    observed: dict[str, Any] | None = field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)

    @property
    def progress(self) -> float:
        total = self.scenario.total_minutes
        return 100.0 * self.done_minutes / total if total else 100.0


# ``evolve(state, time=3, ...)``: a copy with those fields changed (``dataclasses.replace``, cheaper).
evolve = evolver(TasksState)


def holders_by_object(state: TasksState) -> dict[str, list[Run]]:
    """The running actions holding each object in use, in running order."""
    actions = state.scenario.actions
    holding: dict[str, list[Run]] = {}
    for run in state.running:
        for name in actions[run.action].objects:
            found = holding.setdefault(name, [])
            if not found or found[-1] is not run:  # an action naming an object twice holds it once
                found.append(run)
    return holding


def _compile(definition: Mapping[str, Any], constrained: bool) -> Compiled:
    return compile_definition(definition, constrained=constrained)


# Each (definition, constrained) compiled once per process; every state of its games shares it.
COMPILED: CompiledScenarios[Compiled] = CompiledScenarios(_compile)


def dump(state: TasksState) -> dict[str, Any]:
    scenario = state.scenario
    return {
        "definition": scenario.definition,
        "scenario_key": COMPILED.dump_key(scenario, scenario.definition, scenario.constrained),
        "options": {f.name: getattr(state.options, f.name) for f in fields(Options)},
        "seed": state.seed,
        "time": state.time,
        "agents": [[a.busy_until, a.doing, a.rejected_in_row] for a in state.agents],
        "counts": [list(c) for c in state.counts],
        "running": [[r.action, r.agent, r.start, r.end] for r in state.running],
        "finished": [[r.action, r.agent, r.start, r.end] for r in state.finished],
        "done_minutes": state.done_minutes,
        "progress_time": state.progress_time,
        "ended": state.ended,
        "ended_at": state.ended_at,
    }


def load(raw: Mapping[str, Any], compiled: Compiled | None = None) -> TasksState:
    options = Options(**raw["options"])
    scenario = compiled or compile_definition(raw["definition"], constrained=options.constrained)
    finished = tuple(Run(*row) for row in raw["finished"])
    return TasksState(
        scenario=scenario,
        options=options,
        seed=raw["seed"],
        time=raw["time"],
        agents=tuple(Agent(*row) for row in raw["agents"]),
        counts=tuple(Counts(*row) for row in raw["counts"]),
        running=tuple(Run(*row) for row in raw["running"]),
        finished=finished,
        done=frozenset(run.action for run in finished),
        done_minutes=raw["done_minutes"],
        progress_time=raw["progress_time"],
        ended=raw["ended"],
        ended_at=raw["ended_at"],
    )
