"""The exact Recipe2Plan planner: a CP-SAT model of the rules (SPEC sections 3 and 6).

Model (times scaled by the greatest common divisor of all durations and windows):
- a step is one interval; an interruptible step is up to ``chunks`` ordered optional intervals
  whose sizes add up to its duration (the first is always present);
- prerequisites: a step starts after each prerequisite's last chunk ends;
- one cook: the continuous chunks do not overlap, and no step starts inside a continuous chunk
  (the cook is busy, so cannot start anything: the rule set's clock rule);
- appliances: the chunks that use an appliance do not overlap, except two recipes' identical
  preheats, which may share one interval (then only one of them holds the oven);
- appliance state: between a step's own preheat and the step itself, no other update changes a
  property it requires (no 425-degree preheat between a 350 preheat and its bake);
- time constraints (when on): every chunk of a step starts at most the window after the end of
  the step it follows;
- minimise the makespan. The heuristic plan is the solution hint and bounds the horizon.

Reports whether optimality was proven and the relative gap otherwise; single-threaded by default
so that, given a seed, the answer does not depend on thread timing.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from games.domains.recipes.kitchen import Kitchen, StepSpec, load_kitchen
from games.domains.recipes.plan import PlanItem, order
from games.domains.recipes.state import initial_state
from games.planners import recipes_heuristic

Ref = tuple[int, int]


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


def _build_step(model: cp_model.CpModel, spec: StepSpec, unit: int, horizon: int, chunks: int) -> _Step:
    length = spec.duration // unit
    name = f"r{spec.recipe}s{spec.index}"
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


def solve(
    definition: Mapping[str, Any],
    *,
    time_constraints: bool = True,
    time_limit: float = 30.0,
    chunks: int = 2,
    workers: int = 1,
    seed: int = 0,
    heuristic: recipes_heuristic.HeuristicResult | None = None,
) -> OptimalResult:
    """``heuristic``: the heuristic's result when the caller already has it (else it is computed)."""
    began = time.perf_counter()
    kitchen = load_kitchen(definition)
    unit = _scale(kitchen)
    if heuristic is None:
        heuristic = recipes_heuristic.plan(definition, time_constraints=time_constraints)
    every = kitchen.all_steps()
    total = sum(s.duration for s in every) + sum(w for s in every for _, w in s.time_constraints)
    horizon = (heuristic.makespan if heuristic.makespan is not None else total) // unit

    model = cp_model.CpModel()
    steps: dict[Ref, _Step] = {
        (spec.recipe, spec.index): _build_step(model, spec, unit, horizon, chunks) for spec in kitchen.all_steps()
    }
    ancestors = _ancestors(kitchen)

    for ref, step in steps.items():
        for prerequisite in step.spec.prerequisites:
            model.add(step.start >= steps[(ref[0], prerequisite)].end)

    # One cook: continuous chunks never overlap, and nothing starts inside a non-interruptible one.
    # (Inside an interruptible chunk the cook can pause for an instant to start it: the plan is cut
    # there afterwards, see _split_at_starts.)
    continuous = [(ref, chunk) for ref, step in steps.items() if not step.spec.autonomous for chunk in step.chunks]
    model.add_no_overlap([chunk.interval for _, chunk in continuous])
    # A chunk cut late would start after its window closes: windowed steps stay solid.
    solid = [
        (ref, chunk)
        for ref, chunk in continuous
        if not steps[ref].spec.interruptible or (time_constraints and steps[ref].spec.time_constraints)
    ]
    for ref, step in steps.items():
        if not step.spec.autonomous:
            continue
        for own in step.chunks:
            for other_ref, chunk in solid:
                if other_ref in ancestors[ref] or ref in ancestors[other_ref]:
                    continue  # precedence already orders them
                before = model.new_bool_var("")
                model.add(own.start <= chunk.start).only_enforce_if(before)
                model.add(own.start >= chunk.end).only_enforce_if(~before)

    _appliances(model, kitchen, steps, ancestors)

    if time_constraints:
        for ref, step in steps.items():
            for source, window in step.spec.time_constraints:
                latest = steps[(ref[0], source)].end + window // unit
                for chunk in step.chunks:
                    if isinstance(chunk.present, int):
                        model.add(chunk.start <= latest)
                    else:
                        model.add(chunk.start <= latest).only_enforce_if(chunk.present)

    makespan = model.new_int_var(0, horizon, "makespan")
    model.add_max_equality(makespan, [step.end for step in steps.values()])
    _bounds(model, kitchen, steps, ancestors, makespan, unit)
    model.minimize(makespan)

    if heuristic.plan is not None:
        _hint(model, steps, kitchen, heuristic.plan, unit)

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, float(time_limit))
    solver.parameters.num_workers = max(1, int(workers))
    solver.parameters.random_seed = int(seed)
    status = solver.solve(model)
    elapsed = time.perf_counter() - began
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        notes = [f"CP-SAT ended with {name}"]
        if heuristic.plan is not None:
            notes.append("returning the heuristic plan")
            return OptimalResult(heuristic.plan, heuristic.makespan, False, None, None, elapsed, name, notes)
        return OptimalResult(None, None, False, None, None, elapsed, name, notes)
    value = int(solver.objective_value) * unit
    bound = math.ceil(solver.best_objective_bound - 1e-9) * unit
    optimal = status == cp_model.OPTIMAL
    gap = 0.0 if optimal else (value - bound) / value if value else 0.0
    items: list[PlanItem] = []
    for ref, step in steps.items():
        for chunk in step.chunks:
            if isinstance(chunk.present, int) or solver.boolean_value(chunk.present):
                size = chunk.size if isinstance(chunk.size, int) else solver.value(chunk.size)
                if size > 0:
                    items.append((ref[1], kitchen.recipes[ref[0]].name, size * unit, solver.value(chunk.start) * unit))
    state = initial_state(definition, options={"time_constraints": time_constraints})
    items = _split_at_starts(kitchen, items, time_constraints)
    return OptimalResult(order(state, items), value, optimal, round(gap, 6), bound, elapsed, name)


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


def _bounds(
    model: cp_model.CpModel,
    kitchen: Kitchen,
    steps: dict[Ref, _Step],
    ancestors: dict[Ref, set[Ref]],
    makespan: cp_model.IntVar,
    unit: int,
) -> None:
    """Redundant cuts that give CP-SAT a good lower bound early: the cook's work is sequential, so
    everything continuous before a step (after it) adds up before its start (after its end)."""

    def work(refs: set[Ref] | list[Ref]) -> int:
        return sum(steps[r].spec.duration // unit for r in refs if not steps[r].spec.autonomous)

    descendants: dict[Ref, set[Ref]] = {ref: set() for ref in steps}
    for ref, found in ancestors.items():
        for ancestor in found:
            descendants[ancestor].add(ref)
    tails: dict[Ref, int] = {}

    def tail(ref: Ref) -> int:
        if ref not in tails:
            tails[ref] = max(
                (
                    steps[d].spec.duration // unit + tail(d)
                    for d in descendants[ref]
                    if ref in {(d[0], p) for p in steps[d].spec.prerequisites}
                ),
                default=0,
            )
        return tails[ref]

    # One machine with heads and tails (valid even with chunks): for any set R of continuous steps,
    # the cook starts R's work no earlier than the smallest head in R, does all of it, and the
    # last one's successors still follow: makespan >= min head(R) + work(R) + min tail(R).
    heads: dict[Ref, int] = {}

    def head(ref: Ref) -> int:
        if ref not in heads:
            spec = steps[ref].spec
            heads[ref] = max(
                (head((ref[0], p)) + steps[(ref[0], p)].spec.duration // unit for p in spec.prerequisites), default=0
            )
        return heads[ref]

    continuous = [ref for ref, step in steps.items() if not step.spec.autonomous]
    best = 0
    for low_head in sorted({head(ref) for ref in continuous}):
        for low_tail in sorted({tail(ref) for ref in continuous}):
            chosen = [ref for ref in continuous if head(ref) >= low_head and tail(ref) >= low_tail]
            if chosen:
                best = max(best, low_head + work(chosen) + low_tail)
    model.add(makespan >= best)
    for ref, step in steps.items():
        model.add(step.start >= work(ancestors[ref]))
        model.add(makespan >= step.end + max(work(descendants[ref]), tail(ref)))


def _appliances(
    model: cp_model.CpModel, kitchen: Kitchen, steps: dict[Ref, _Step], ancestors: dict[Ref, set[Ref]]
) -> None:
    for appliance, _ in kitchen.appliances:
        users = [(ref, step) for ref, step in steps.items() if any(u.appliance == appliance for u in step.spec.uses)]
        intervals: list[cp_model.IntervalVar] = []
        leaders: list[tuple[Ref, _Step]] = []
        for ref, step in users:
            use = next(u for u in step.spec.uses if u.appliance == appliance)
            partners = [
                (other_ref, other)
                for other_ref, other in leaders
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
                    leaders.append((ref, step))
                continue
            # May share one identical preheat with a partner; then only the partner holds it.
            shares = []
            for _, partner in partners:
                share = model.new_bool_var(f"share_{ref}")
                model.add(step.start == partner.start).only_enforce_if(share)
                shares.append(share)
            model.add(sum(shares) <= 1)
            alone = model.new_bool_var(f"alone_{ref}")
            model.add(alone + sum(shares) == 1)
            chunk = step.chunks[0]
            intervals.append(model.new_optional_interval_var(chunk.start, chunk.size, chunk.end, alone, f"oven_{ref}"))
        model.add_no_overlap(intervals)

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
