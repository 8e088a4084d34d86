"""The exact Recipe2Plan planner: a CP-SAT model of the rules (SPEC sections 3 and 6).

Two models, times scaled by the greatest common divisor of all durations and windows (the unit):

The **restricted model** finds plans (each replays through the rules):
- a step is one interval; an interruptible step is up to ``chunks`` ordered optional intervals
  whose sizes add up to its duration (the first is always present);
- prerequisites: a step starts after each prerequisite's last chunk ends;
- one cook: the continuous chunks do not overlap, and no step starts inside a continuous chunk
  (the cook is busy, so cannot start anything: the rule set's clock rule); an interruptible chunk
  may be paused for an instant to start an autonomous step (the plan is cut there);
- appliances: the chunks that use an appliance do not overlap, except identical preheats of
  different recipes, which may share one interval (then only one of them holds the oven);
- appliance state: between a step's own preheat and the step itself, no other update changes a
  property it requires (no 425-degree preheat between a 350 preheat and its bake);
- time constraints (when on): every chunk of a step starts at most the window after the end of
  the step it follows;
- minimise the makespan. The heuristic plan is the solution hint and bounds the horizon.

Its optimum is only the best plan with at most ``chunks`` chunks per interruptible step (and
windowed interruptible steps never cut for an autonomous start), so it proves nothing about plans
with more chunks. The **relaxation** gives the lower bound: every interruptible continuous step
is any set of unit slots on the cook between its first start and its last end (chunks of any
number; a slot after an idle one starts a chunk, which must start within the step's windows);
interruptible steps are left off the appliances, no state rule, autonomous steps may start inside
interruptible chunks. Every plan whose times are whole units is a schedule of the relaxation, so
when the relaxation has no schedule shorter than the restricted model's best plan, that plan is
optimal over all such plans (``optimal``), whatever their number of chunks. ``bound`` is the
relaxation's lower bound otherwise. The same relaxation is also asked unit by unit
(``recipes_time_indexed``), whose exact cover of the cook's units refutes packings the interval
model cannot: first when the cook could be idle at most one unit, else after the fixed search.
Neither is built when the static bound (``_static_floor``: chains, the cook's and each appliance's
work) already meets the plan, nor beyond SLOTS unit slots (then ``bound`` is the static bound).
(Whole units: durations and windows are multiples of the unit, so chunks cut off the unit are not
considered; for generated recipes the unit is one minute.)

Single-threaded by default so that, given a seed, the answer does not depend on thread timing; with
``work_limit`` (generated instances) it does not depend on the machine's speed either.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from graphlib import TopologicalSorter
from typing import Any

from ortools.sat.python import cp_model

from games.domains.recipes.kitchen import Kitchen, StepSpec, load_kitchen
from games.domains.recipes.plan import PlanItem, order
from games.domains.recipes.state import initial_state
from games.planners import recipes_heuristic, recipes_time_indexed
from games.planners.budget import Budget

Ref = tuple[int, int]
# How ``solve`` spends its time limit: the restricted model gets at most RESTRICTED_SHARE of it (it
# finds its best plan early; proving that plan optimal among two-chunk plans proves nothing about
# plans with more chunks), and the relaxation keeps LP_SHARE for its second try (see _relaxed_bound).
RESTRICTED_SHARE = 0.4
LP_SHARE = 0.22
# The relaxation's time-indexed twin (recipes_time_indexed) tries first, with up to
# TIME_INDEXED_SHARE of the budget, when the cook would have to be busy (almost) all the time;
# otherwise it comes after the fixed search, which keeps TIME_INDEXED_LATE_SHARE of the budget for it,
# and then searches over its full linear relaxation (stop 28: that refutes s9-004's 180 minutes in
# about 5 s, s12-001's 229 in 30 s and s14-004's 237 in 39 s, none of which the default search
# settles in 60 s; first, with no slack, the default search is the fast one: s5-004 in 2 s).
TIME_INDEXED_SHARE = 0.5
# Stop 56: the late phase searches the twin with the model's fixed order of decisions over its full
# linear relaxation, and has half of the LP search's share as well (LATE_LP_SHARE is what the LP
# search keeps after it): that refutes s12-001's 229 minutes in 9.3 deterministic seconds, where
# 7.2 of the default search settled nothing, and s7-001, the one pair the LP search proves after the
# twin, still gets the 0.19 deterministic seconds it needs (docs/scenarios.md).
TIME_INDEXED_LATE_SHARE = 0.36
LATE_LP_SHARE = 0.11
# Largest relaxation built: unit slots of its interruptible continuous steps, all together (a
# thirty-step pair of 240 minutes has at most 14,400; two 12-hour steps in 1-second units, 172,800,
# took seconds to build before the budget began to count). Beyond it the bound is the static floor.
SLOTS = 40_000
# With a work budget (``work_limit``), the deterministic seconds each phase counts per second of
# one CPU on the reference machine (stop 27, the 64 thirty-step pairs of seeds 0-15, summed over the
# searches each phase ran: restricted model 0.48, relaxation's fixed search 0.33, its LP search
# 0.18, time-indexed model 2.85), so that a phase's share of the budget lasts that share of its
# seconds. The restricted model runs at budget.WORK_PER_SECOND. The time-indexed model with its
# linear relaxation counts its work fastest early on (presolve and the first LP), so its rate is
# taken at the length it runs in a 10 s budget, about 2.5 s: stop 37, summed over the six
# thirty-step pairs that reach it, 2.86 per second. Stop 28 had taken 1.14 from a search of many
# seconds on s9-004 alone, which held the phase to about 0.7 s of its 2.5.
FIXED_SEARCH_RATE = 0.33
LP_SEARCH_RATE = 0.18
TIME_INDEXED_RATE = 2.85
TIME_INDEXED_LP_RATE = 2.86


@dataclass
class OptimalResult:
    plan: list[PlanItem] | None
    makespan: int | None
    optimal: bool
    gap: float | None
    bound: int | None
    solve_seconds: float
    status: str
    notes: list[str] = field(default_factory=list)


@dataclass
class _Chunk:
    start: cp_model.IntVar
    size: cp_model.IntVar | int
    end: cp_model.IntVar
    present: cp_model.IntVar | int
    interval: cp_model.IntervalVar


@dataclass
class _Step:
    spec: StepSpec
    chunks: list[_Chunk]
    # The relaxation's unit slots of an interruptible continuous step: (time, worked, a chunk starts).
    slots: list[tuple[int, cp_model.IntVar, cp_model.IntVar]] = field(default_factory=list)

    @property
    def start(self) -> cp_model.IntVar:
        return self.chunks[0].start

    @property
    def end(self) -> cp_model.IntVar:
        return self.chunks[-1].end


def _scale(kitchen: Kitchen) -> int:
    values = [s.duration for s in kitchen.all_steps()] + [w for s in kitchen.all_steps() for _, w in s.time_constraints]
    return math.gcd(*[v for v in values if v > 0]) or 1


def _ancestors(kitchen: Kitchen) -> dict[Ref, set[Ref]]:
    found: dict[Ref, set[Ref]] = {}
    for spec in kitchen.all_steps():
        seen: set[Ref] = set()
        todo = list(spec.prerequisites)
        while todo:
            index = todo.pop()
            if (spec.recipe, index) not in seen:
                seen.add((spec.recipe, index))
                todo.extend(kitchen.step(spec.recipe, index).prerequisites)
        found[(spec.recipe, spec.index)] = seen
    return found


def _build_step(
    model: cp_model.CpModel, spec: StepSpec, unit: int, horizon: int, chunks: int, relaxed: bool = False
) -> _Step:
    length = spec.duration // unit
    name = f"r{spec.recipe}s{spec.index}"
    if relaxed and spec.interruptible:
        # The relaxation: from its first chunk's start to its last chunk's end, at least its length.
        start = model.new_int_var(0, horizon - length, f"{name}_start")
        size = model.new_int_var(length, horizon, f"{name}_span")
        end = model.new_int_var(length, horizon, f"{name}_end")
        interval = model.new_interval_var(start, size, end, f"{name}_iv")
        return _Step(spec, [_Chunk(start, size, end, 1, interval)])
    if not spec.interruptible or chunks <= 1 or length <= 1:
        start = model.new_int_var(0, horizon - length, f"{name}_start")
        end = model.new_int_var(length, horizon, f"{name}_end")
        interval = model.new_interval_var(start, length, end, f"{name}_iv")
        return _Step(spec, [_Chunk(start, length, end, 1, interval)])
    parts: list[_Chunk] = []
    for number in range(chunks):
        start = model.new_int_var(0, horizon, f"{name}_c{number}_start")
        size = model.new_int_var(0 if number else 1, length, f"{name}_c{number}_size")
        end = model.new_int_var(0, horizon, f"{name}_c{number}_end")
        if number == 0:
            present: cp_model.IntVar | int = 1
            interval = model.new_interval_var(start, size, end, f"{name}_c{number}_iv")
        else:
            present = model.new_bool_var(f"{name}_c{number}_present")
            interval = model.new_optional_interval_var(start, size, end, present, f"{name}_c{number}_iv")
            previous = parts[-1]
            model.add(start >= previous.end)
            model.add(size >= 1).only_enforce_if(present)
            model.add(size == 0).only_enforce_if(~present)
            model.add(start == previous.end).only_enforce_if(~present)
            if number > 1:
                model.add_implication(present, previous.present)  # type: ignore[arg-type]
        model.add(end == start + size)
        parts.append(_Chunk(start, size, end, present, interval))
    model.add(sum(part.size for part in parts) == length)
    return _Step(spec, parts)


@dataclass
class _Model:
    model: cp_model.CpModel
    steps: dict[Ref, _Step]
    makespan: cp_model.IntVar
    floor: int  # the static lower bound the model states (in units), valid for every plan


def _build(
    kitchen: Kitchen,
    unit: int,
    horizon: int,
    *,
    time_constraints: bool,
    chunks: int,
    relaxed: bool,
    floor: int = 0,
) -> _Model:
    """The restricted model (``relaxed`` False: at most ``chunks`` pieces per interruptible step,
    its plans are real plans) or the relaxation (``relaxed`` True: its optimum is a lower bound of
    every real plan, see the module's docstring). ``floor``: a known lower bound of the makespan."""
    model = cp_model.CpModel()
    steps: dict[Ref, _Step] = {
        (spec.recipe, spec.index): _build_step(model, spec, unit, horizon, chunks, relaxed)
        for spec in kitchen.all_steps()
    }
    ancestors = _ancestors(kitchen)

    for ref, step in steps.items():
        for prerequisite in step.spec.prerequisites:
            model.add(step.start >= steps[(ref[0], prerequisite)].end)

    # One cook: continuous chunks never overlap, and nothing starts inside a non-interruptible one.
    # (Inside an interruptible chunk the cook can pause for an instant to start it: the plan is cut
    # there afterwards, see _split_at_starts.) The relaxation leaves interruptible steps off the cook.
    continuous = [
        (ref, chunk)
        for ref, step in steps.items()
        if not step.spec.autonomous and not (relaxed and step.spec.interruptible)
        for chunk in step.chunks
    ]
    cook = [chunk.interval for _, chunk in continuous]
    heads, tails = _heads_tails(kitchen, unit)
    if relaxed:
        for step in steps.values():
            if step.spec.interruptible and not step.spec.autonomous:
                ref = (step.spec.recipe, step.spec.index)
                cook.extend(_slots(model, step, unit, heads[ref], horizon - tails[ref]))
    model.add_no_overlap(cook)
    # A chunk cut late would start after its window closes: windowed steps stay solid (a
    # restriction; the relaxation only keeps non-interruptible steps solid).
    solid = [
        (ref, chunk)
        for ref, chunk in continuous
        if not steps[ref].spec.interruptible or (time_constraints and steps[ref].spec.time_constraints)
    ]
    _starts_outside(model, steps, solid, relaxed)

    _appliances(model, kitchen, steps, ancestors, relaxed)

    if time_constraints:
        for ref, step in steps.items():
            for source, window in step.spec.time_constraints:
                latest = steps[(ref[0], source)].end + window // unit
                for t, _, begins in step.slots:
                    model.add(latest >= t).only_enforce_if(begins)  # every chunk starts in the window
                for chunk in step.chunks:
                    if isinstance(chunk.present, int):
                        model.add(chunk.start <= latest)
                    else:
                        model.add(chunk.start <= latest).only_enforce_if(chunk.present)

    makespan = model.new_int_var(0, horizon, "makespan")
    model.add_max_equality(makespan, [step.end for step in steps.values()])
    static = _bounds(model, kitchen, steps, ancestors, (heads, tails), makespan, unit, horizon)
    if floor:
        model.add(makespan >= floor)
    model.minimize(makespan)
    # Set times: the earliest possible start first, at its earliest value (branching on starts
    # before the relaxation's slots is what lets it prove that nothing shorter exists).
    starts = [chunk.start for step in steps.values() for chunk in step.chunks]
    model.add_decision_strategy(starts, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    return _Model(model, steps, makespan, static)


def _starts_outside(
    model: cp_model.CpModel, steps: dict[Ref, _Step], solid: list[tuple[Ref, _Chunk]], relaxed: bool
) -> None:
    """No autonomous chunk starts strictly inside a solid chunk, as one cumulative in doubled time:
    a chunk [a, b) becomes [2a+1, 2b-1) at full capacity and a start s the token [2s-1, 2s+1) of
    demand 1, so they meet exactly when a < s < b (tokens may meet each other: capacity is their
    number)."""
    tokens: list[cp_model.IntervalVar] = []
    for step in steps.values():
        if not step.spec.autonomous or (relaxed and step.spec.interruptible):
            continue
        for chunk in step.chunks:
            if isinstance(chunk.present, int):
                tokens.append(model.new_fixed_size_interval_var(2 * chunk.start - 1, 2, ""))
            else:
                tokens.append(model.new_optional_fixed_size_interval_var(2 * chunk.start - 1, 2, chunk.present, ""))
    if not tokens:
        return
    blocks: list[cp_model.IntervalVar] = []
    for _, chunk in solid:
        if isinstance(chunk.size, int):
            if chunk.size > 1:
                blocks.append(model.new_fixed_size_interval_var(2 * chunk.start + 1, 2 * chunk.size - 2, ""))
        elif isinstance(chunk.present, int):
            blocks.append(model.new_interval_var(2 * chunk.start + 1, 2 * chunk.size - 2, 2 * chunk.end - 1, ""))
        else:
            blocks.append(
                model.new_optional_interval_var(
                    2 * chunk.start + 1, 2 * chunk.size - 2, 2 * chunk.end - 1, chunk.present, ""
                )
            )
    if blocks:
        model.add_cumulative(blocks + tokens, [len(tokens)] * len(blocks) + [1] * len(tokens), len(tokens))


def _slots(model: cp_model.CpModel, step: _Step, unit: int, first: int, last: int) -> list[cp_model.IntervalVar]:
    """The relaxation's interruptible step on the cook: its length in unit slots from ``first`` to
    ``last`` (exclusive), any of them, between its first start and its last end: chunks of any
    number, on whole units. A slot worked after an idle one starts a chunk (for time windows)."""
    length = step.spec.duration // unit
    intervals = []
    previous: cp_model.IntVar | None = None
    for t in range(first, last):
        busy = model.new_bool_var("")
        model.add(step.start <= t).only_enforce_if(busy)
        model.add(step.end >= t + 1).only_enforce_if(busy)
        intervals.append(model.new_optional_fixed_size_interval_var(t, 1, busy, ""))
        begins = model.new_bool_var("")
        model.add_bool_or([~busy, begins] if previous is None else [~busy, previous, begins])
        step.slots.append((t, busy, begins))
        previous = busy
    model.add(sum(busy for _, busy, _ in step.slots) == length)
    return intervals


def _slot_count(kitchen: Kitchen, unit: int, below: int, heads: dict[Ref, int], tails: dict[Ref, int]) -> int:
    """How many unit slots the relaxation of makespan ``below`` would make (``_slots``)."""
    return sum(
        max(0, below - tails[(s.recipe, s.index)] - heads[(s.recipe, s.index)])
        for s in kitchen.all_steps()
        if s.interruptible and not s.autonomous
    )


def _heads_tails(kitchen: Kitchen, unit: int) -> tuple[dict[Ref, int], dict[Ref, int]]:
    """Per step, the longest chain of durations before its start and after its end (in units).

    Computed over the steps in dependency order, without recursion (a chain of 600 steps each
    waiting for the one before overflowed Python's stack when it recursed)."""
    every = kitchen.all_steps()
    after: dict[Ref, list[StepSpec]] = {(s.recipe, s.index): [] for s in every}
    for spec in every:
        for p in spec.prerequisites:
            after[(spec.recipe, p)].append(spec)
    graph = {(s.recipe, s.index): [(s.recipe, p) for p in s.prerequisites] for s in every}
    order = [kitchen.step(*ref) for ref in TopologicalSorter(graph).static_order()]  # prerequisites first
    heads: dict[Ref, int] = {}
    tails: dict[Ref, int] = {}
    for spec in order:
        before = (kitchen.step(spec.recipe, p) for p in spec.prerequisites)
        heads[(spec.recipe, spec.index)] = max(
            (heads[(k.recipe, k.index)] + k.duration // unit for k in before), default=0
        )
    for spec in reversed(order):
        ref = (spec.recipe, spec.index)
        tails[ref] = max((k.duration // unit + tails[(k.recipe, k.index)] for k in after[ref]), default=0)
    return heads, tails


def solve(
    definition: Mapping[str, Any],
    *,
    time_constraints: bool = True,
    time_limit: float = 30.0,
    chunks: int = 2,
    workers: int = 1,
    seed: int = 0,
    heuristic: recipes_heuristic.HeuristicResult | None = None,
    work_limit: float | None = None,
) -> OptimalResult:
    """``heuristic``: the heuristic's result when the caller already has it (else it is computed).
    ``work_limit``: stop by CP-SAT's deterministic time instead (the same answer on every machine;
    ``time_limit`` then only guards, see ``games.planners.budget``).

    The restricted model finds the best plan it can (at most ``chunks`` chunks per interruptible
    step; at most RESTRICTED_SHARE of the budget unless it proves its optimum sooner), then the
    relaxation looks for anything shorter with the rest. ``optimal`` is true when the relaxation
    proves there is nothing shorter: optimal over all plans, with any number of chunks on whole
    units."""
    budget = Budget(time_limit, work_limit)
    kitchen = load_kitchen(definition)
    unit = _scale(kitchen)
    if heuristic is None:
        heuristic = recipes_heuristic.plan(definition, time_constraints=time_constraints)
    every = kitchen.all_steps()
    total = sum(s.duration for s in every) + sum(w for s in every for _, w in s.time_constraints)
    horizon = (heuristic.makespan if heuristic.makespan is not None else total) // unit

    restricted = _build(kitchen, unit, horizon, time_constraints=time_constraints, chunks=chunks, relaxed=False)
    if heuristic.plan is not None:
        _hint(restricted.model, restricted.steps, kitchen, heuristic.plan, unit)
    solver = budget.solver(RESTRICTED_SHARE, workers=workers, seed=seed)
    status = budget.solve(solver, restricted.model)
    name = solver.status_name(status)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    best = int(solver.objective_value) if found else horizon + 1
    items: list[PlanItem] = []
    if found:
        for ref, step in restricted.steps.items():
            for chunk in step.chunks:
                if isinstance(chunk.present, int) or solver.boolean_value(chunk.present):
                    size = chunk.size if isinstance(chunk.size, int) else solver.value(chunk.size)
                    if size > 0:
                        start = solver.value(chunk.start) * unit
                        items.append((ref[1], kitchen.recipes[ref[0]].name, size * unit, start))

    # Is there anything shorter than the best plan, with any number of chunks?
    floor = _relaxed_bound(kitchen, unit, best - 1, time_constraints, budget, workers, seed)
    elapsed = time.perf_counter() - budget.began
    bound = floor * unit
    if not found:
        notes = [f"CP-SAT ended with {name}"]
        if heuristic.plan is not None and heuristic.makespan is not None:
            notes.append("returning the heuristic plan")
            optimal = heuristic.makespan == bound
            return OptimalResult(
                heuristic.plan,
                heuristic.makespan,
                optimal,
                _gap(heuristic.makespan, bound),
                bound,
                elapsed,
                name,
                notes,
            )
        return OptimalResult(None, None, False, None, bound, elapsed, name, notes)
    value = best * unit
    optimal = value == bound
    notes = []
    if not optimal and status == cp_model.OPTIMAL:
        notes.append(
            f"best plan with at most {chunks} chunks per interruptible step; plans with more chunks are "
            f"not ruled out (lower bound {bound} s)"
        )
    state = initial_state(definition, options={"time_constraints": time_constraints})
    items = _split_at_starts(kitchen, items, time_constraints)
    return OptimalResult(
        order(state, items), value, optimal, _gap(value, bound), bound, elapsed, "OPTIMAL" if optimal else name, notes
    )


def _relaxed_bound(
    kitchen: Kitchen,
    unit: int,
    below: int,
    time_constraints: bool,
    budget: Budget,
    workers: int,
    seed: int,
) -> int:
    """A lower bound (in units) of every plan's makespan: ``below + 1`` when the relaxation has no
    schedule of makespan ``below`` or less, else the best bound the relaxation proves with what is
    left of ``budget``."""
    heads, tails = _heads_tails(kitchen, unit)
    floor = _static_floor(kitchen, unit, (heads, tails))
    if floor > below:
        return below + 1  # the longest chain, the cook's work or an appliance's alone is longer
    if _slot_count(kitchen, unit, below, heads, tails) > SLOTS:
        return floor  # the relaxation would be too large to build in the budget
    packed = recipes_time_indexed.model(
        kitchen, unit, below, time_constraints=time_constraints, heads=heads, tails=tails
    )
    proven = 0

    def refutes(model: cp_model.CpModel, rate: float, share: float = 1.0, reserve: float = 0.0, **search: Any) -> bool:
        """One search for a schedule of makespan ``below`` (at the phase's ``rate``, with CP-SAT
        ``search`` parameters): True when there is none. The relaxation's proven bound is kept."""
        nonlocal proven
        solver = budget.solver(share, reserve=reserve, workers=workers, seed=seed, rate=rate)
        for name, value in search.items():
            setattr(solver.parameters, name, value)
        status = budget.solve(solver, model, rate=rate)
        if status not in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID) and model is not packed:
            proven = max(proven, math.ceil(solver.best_objective_bound - 1e-9))
        return status == cp_model.INFEASIBLE

    # Different instances yield to different searches. The time-indexed twin goes first when the
    # cook could be idle at most SLACK units (its exact covers settle such packings at once);
    # otherwise the model's decision strategy (earliest starts first) has all but the reserves, then
    # CP-SAT's search over the twin's full linear relaxation, then over the interval model's (on
    # 30-step pairs each proves some that the others do not).
    first = below - recipes_time_indexed.cook_work(kitchen, unit) <= recipes_time_indexed.SLACK
    if packed is not None and first and refutes(packed, TIME_INDEXED_RATE, share=TIME_INDEXED_SHARE):
        return below + 1
    relaxation = _build(kitchen, unit, below, time_constraints=time_constraints, chunks=1, relaxed=True)
    late = TIME_INDEXED_LATE_SHARE if packed is not None and not first else 0.0
    lp = LATE_LP_SHARE if late else LP_SHARE
    if refutes(relaxation.model, FIXED_SEARCH_RATE, reserve=lp + late, search_branching=cp_model.FIXED_SEARCH):
        return below + 1
    if (
        packed is not None
        and late
        and not budget.exhausted()
        and refutes(
            packed,
            TIME_INDEXED_LP_RATE,
            reserve=lp,
            linearization_level=2,
            search_branching=cp_model.FIXED_SEARCH,
        )
    ):
        return below + 1
    if not budget.exhausted() and refutes(relaxation.model, LP_SEARCH_RATE, linearization_level=2):
        return below + 1
    return max(0, min(below, max(relaxation.floor, proven)))


def _gap(value: int, bound: int) -> float:
    return round((value - bound) / value, 6) if value else 0.0


def _split_at_starts(kitchen: Kitchen, items: list[PlanItem], time_constraints: bool) -> list[PlanItem]:
    """Cut interruptible continuous chunks where an autonomous step starts inside them: the cook
    pauses, starts it, and carries on (the rules let nothing start while the cook is busy)."""
    starts = sorted(
        {start for step, recipe, _, start in items if kitchen.step(kitchen.recipe_index(recipe) or 0, step).autonomous}
    )
    cut: list[PlanItem] = []
    for step, recipe, duration, start in items:
        spec = kitchen.step(kitchen.recipe_index(recipe) or 0, step)
        if spec.autonomous or not spec.interruptible or (time_constraints and spec.time_constraints):
            cut.append((step, recipe, duration, start))
            continue
        edges = [start, *(t for t in starts if start < t < start + duration), start + duration]
        cut.extend((step, recipe, b - a, a) for a, b in itertools.pairwise(edges))
    return cut


def _static_floor(kitchen: Kitchen, unit: int, chains: tuple[dict[Ref, int], dict[Ref, int]]) -> int:
    """A lower bound (in units) of every plan's makespan, without a model: the longest chain of
    steps, and one machine with heads and tails on the cook and on each appliance. ``chains``: the
    steps' heads and tails (``_heads_tails``)."""
    heads, tails = chains
    specs = {(s.recipe, s.index): s for s in kitchen.all_steps()}

    # One machine with heads and tails (valid even with chunks): for any set R of continuous steps,
    # the cook starts R's work no earlier than the smallest head in R, does all of it, and the
    # last one's successors still follow: makespan >= min head(R) + work(R) + min tail(R).
    def one_machine(machine: list[Ref]) -> int:
        best = 0
        for low_head in sorted({heads[ref] for ref in machine}):
            for low_tail in sorted({tails[ref] for ref in machine}):
                chosen = [ref for ref in machine if heads[ref] >= low_head and tails[ref] >= low_tail]
                if chosen:
                    best = max(best, low_head + sum(specs[r].duration // unit for r in chosen) + low_tail)
        return best

    floor = max(heads[ref] + spec.duration // unit + tails[ref] for ref, spec in specs.items())  # the longest chain
    floor = max(floor, one_machine([ref for ref, spec in specs.items() if not spec.autonomous]))
    # The same on each appliance, over the steps that never share it (a preheat that could share an
    # identical one of another recipe is left out).
    for appliance, _ in kitchen.appliances:
        uses = {ref: next((u for u in spec.uses if u.appliance == appliance), None) for ref, spec in specs.items()}
        alone = [
            ref
            for ref, use in uses.items()
            if use is not None
            and not (use.update and any(other == use and r[0] != ref[0] for r, other in uses.items()))
        ]
        if alone:
            floor = max(floor, one_machine(alone))
    return floor


def _bounds(
    model: cp_model.CpModel,
    kitchen: Kitchen,
    steps: dict[Ref, _Step],
    ancestors: dict[Ref, set[Ref]],
    chains: tuple[dict[Ref, int], dict[Ref, int]],
    makespan: cp_model.IntVar,
    unit: int,
    horizon: int,
) -> int:
    """Redundant cuts that give CP-SAT a good lower bound early: the cook's work is sequential, so
    everything continuous before a step (after it) adds up before its start (after its end).
    ``chains``: the steps' heads and tails (``_heads_tails``)."""

    def work(refs: set[Ref] | list[Ref]) -> int:
        return sum(steps[r].spec.duration // unit for r in refs if not steps[r].spec.autonomous)

    descendants: dict[Ref, set[Ref]] = {ref: set() for ref in steps}
    for ref, found in ancestors.items():
        for ancestor in found:
            descendants[ancestor].add(ref)
    tails = chains[1]
    floor = _static_floor(kitchen, unit, chains)  # the longest chain, the cook and each appliance
    model.add(makespan >= floor)
    for ref, step in steps.items():
        model.add(step.start >= work(ancestors[ref]))
        model.add(makespan >= step.end + max(work(descendants[ref]), tails[ref]))
    # Two recipes: the cook's work after a step of one and after a step of another all comes after
    # the earlier of the two ends (CP-SAT's edge finding sees a chunk of unknown size as one unit).
    anchors = [ref for ref in steps if work(descendants[ref])]
    for a, b in itertools.combinations(anchors, 2):
        if a[0] == b[0]:
            continue
        earlier = model.new_int_var(0, horizon, "")
        model.add_min_equality(earlier, [steps[a].end, steps[b].end])
        model.add(makespan >= earlier + work(descendants[a]) + work(descendants[b]))
    return floor


def _appliances(
    model: cp_model.CpModel,
    kitchen: Kitchen,
    steps: dict[Ref, _Step],
    ancestors: dict[Ref, set[Ref]],
    relaxed: bool = False,
) -> None:
    """Appliance no-overlap, with shared identical preheats: of a group of identical uses (same
    start, duration and update, pairwise different recipes) one step holds the appliance and each
    other shares its interval. The relaxation leaves interruptible steps off the appliances and
    keeps no state rule (the restricted model's rule below is stricter than the game's)."""
    for appliance, _ in kitchen.appliances:
        users = [
            (ref, step)
            for ref, step in steps.items()
            if any(u.appliance == appliance for u in step.spec.uses) and not (relaxed and step.spec.interruptible)
        ]
        intervals: list[cp_model.IntervalVar] = []
        holds: dict[Ref, cp_model.IntVar] = {}
        shared: dict[tuple[Ref, int], list[cp_model.IntVar]] = {}  # (holder, recipe) -> its sharers
        for number, (ref, step) in enumerate(users):
            use = next(u for u in step.spec.uses if u.appliance == appliance)
            partners = [
                (other_ref, other)
                for other_ref, other in users[:number]
                if other_ref[0] != ref[0]
                and next(u for u in other.spec.uses if u.appliance == appliance) == use
                and use.update
                and other.spec.duration == step.spec.duration
                and len(other.chunks) == 1
                and len(step.chunks) == 1
            ]
            if not partners:
                intervals.extend(chunk.interval for chunk in step.chunks)
                if use.update and len(step.chunks) == 1:
                    holds[ref] = model.new_constant(1)
                continue
            shares = []
            for other_ref, partner in partners:
                share = model.new_bool_var(f"share_{ref}_{other_ref}")
                model.add(step.start == partner.start).only_enforce_if(share)
                model.add_implication(share, holds[other_ref])
                shared.setdefault((other_ref, ref[0]), []).append(share)
                shares.append(share)
            alone = model.new_bool_var(f"alone_{ref}")
            model.add(alone + sum(shares) == 1)
            holds[ref] = alone
            chunk = step.chunks[0]
            intervals.append(model.new_optional_interval_var(chunk.start, chunk.size, chunk.end, alone, f"oven_{ref}"))
        for sharers in shared.values():
            if len(sharers) > 1:
                model.add_at_most_one(sharers)  # two steps of one recipe never share one interval
        model.add_no_overlap(intervals)
        if relaxed:
            continue

        # Appliance state: nothing changes a required property between the step's own setter and it.
        for ref, step in users:
            need = next(u for u in step.spec.uses if u.appliance == appliance)
            if not need.require:
                continue
            wanted = dict(need.require)
            setters = [
                a
                for a in sorted(ancestors[ref], key=lambda r: -r[1])
                if any(
                    u.appliance == appliance and all(dict(u.update).get(k) == v for k, v in wanted.items())
                    for u in steps[a].spec.uses
                )
            ]
            if not setters:
                continue
            setter = steps[setters[0]]
            for other_ref, other in users:
                other_use = next(u for u in other.spec.uses if u.appliance == appliance)
                changes = any(k in wanted and v != wanted[k] for k, v in other_use.update)
                if not changes or other_ref == ref:
                    continue
                early = model.new_bool_var("")
                model.add(other.start + 1 <= setter.start).only_enforce_if(early)
                model.add(other.start >= step.start + 1).only_enforce_if(~early)


def _hint(model: cp_model.CpModel, steps: dict[Ref, _Step], kitchen: Kitchen, plan: list[PlanItem], unit: int) -> None:
    starts: dict[Ref, int] = {}
    for step_index, recipe_name, _, start in plan:
        recipe = kitchen.recipe_index(recipe_name)
        if recipe is not None:
            starts.setdefault((recipe, step_index), start // unit)
    for ref, step in steps.items():
        if ref not in starts:
            continue
        first = step.chunks[0]
        model.add_hint(first.start, starts[ref])
        for chunk in step.chunks[1:]:
            if not isinstance(chunk.present, int):
                model.add_hint(chunk.present, 0)
