"""The Recipe2Plan benchmark's heuristic planner (SPEC section 3), on our rule set.

Priority list: autonomous steps by duration, longest first, then continuous steps; each preceded
by its not-yet-listed prerequisites. A depth-first search walks the game clock: at each moment it
starts the first listed step whose checks pass (the rule set's own checks: dependencies, cook,
appliances, time constraints), or lets time run to the next event; a dead end (a spoiled recipe,
or nothing left that can ever start) backtracks to the last choice. Time constraints are met by
delaying the step they constrain from: a step that opens a window is only started when everything
the window's chain needs is done, and while a window is open nothing that would block the waiting
step is started. The same guard keeps a preheated oven from being reset before its bake.

Whole steps only (no chunks); the result replays feasibly through the rules by construction.

The search stops after ``node_limit`` nodes or ``work_limit`` step checks (``check_start`` calls,
one per listed step not yet started at each node, so a node of a ten-recipe kitchen costs a
thousand): counted, not timed, so that a search ends the same way on every machine (generated
instances are byte-for-byte the same everywhere).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.domains.recipes.execution import advance, begin, check_start, next_event_time
from games.domains.recipes.kitchen import Kitchen, StepSpec
from games.domains.recipes.plan import PlanItem, order
from games.domains.recipes.state import FAILED, SUCCESS, RecipesState, initial_state
from games.domains.recipes.text import StepAction

Ref = tuple[int, int]  # (recipe number, step index)

NODE_LIMIT = 20_000
# The most step checks a search makes: about 2 s here (4-7 us a check). Within NODE_LIMIT alone,
# five recipes of 100 steps took 5.4 million checks (21 s) and ten 9.9 million (39 s), finding
# nothing. The most any plan found needed: 408,500 checks, among 600 searches of generated
# recipes at the generator's widest knobs (3 recipes of 30 steps; 17 of them found nothing, with
# 160,000-870,000 checks); 3,172 for the 65 published pairs and the bundled scenarios.
WORK_LIMIT = 500_000


@dataclass
class HeuristicResult:
    plan: list[PlanItem] | None
    makespan: int | None
    nodes: int
    solve_seconds: float
    notes: list[str] = field(default_factory=list)
    checks: int = 0  # the step checks the search made

    @property
    def feasible(self) -> bool:
        return self.plan is not None


def priority_list(kitchen: Kitchen) -> list[Ref]:
    steps = kitchen.all_steps()
    autonomous = sorted((s for s in steps if s.autonomous), key=lambda s: (-s.duration, s.recipe, s.index))
    continuous = [s for s in steps if not s.autonomous]
    listed: list[Ref] = []
    seen: set[Ref] = set()

    def place(spec: StepSpec) -> None:
        """List ``spec`` after its unlisted prerequisites, depth first (a walk with its own stack:
        a chain of 1,200 steps overflowed Python's when it recursed)."""
        ref = (spec.recipe, spec.index)
        if ref in seen:
            return
        seen.add(ref)
        walk = [(ref, iter(spec.prerequisites))]
        while walk:
            current, prerequisites = walk[-1]
            for prerequisite in prerequisites:
                before = (current[0], prerequisite)
                if before not in seen:
                    seen.add(before)
                    walk.append((before, iter(kitchen.step(*before).prerequisites)))
                    break
            else:
                walk.pop()
                listed.append(current)

    for spec in [*autonomous, *continuous]:
        place(spec)
    return listed


class _Guards:
    """Precomputed constraint structure of a kitchen for the delay rules."""

    def __init__(self, kitchen: Kitchen, constraints: bool, slack: int = 0) -> None:
        self.kitchen = kitchen
        self.constraints = constraints
        self.slack = slack  # seconds kept free before a deadline (a player's reaction time)
        # source -> [(constrained step, window)]
        self.windows: dict[Ref, list[tuple[Ref, int]]] = {}
        for spec in kitchen.all_steps():
            for source, window in spec.time_constraints:
                self.windows.setdefault((spec.recipe, source), []).append(((spec.recipe, spec.index), window))
        self.closure: dict[Ref, set[Ref]] = {ref: self._chain(ref) for ref in self.windows}
        self.ancestors: dict[Ref, set[Ref]] = {}
        for spec in kitchen.all_steps():
            self.ancestors[(spec.recipe, spec.index)] = self._ancestors(spec)

    def _chain(self, source: Ref) -> set[Ref]:
        chain: set[Ref] = set()
        todo = [source]
        while todo:
            for target, _ in self.windows.get(todo.pop(), []):
                if target not in chain:
                    chain.add(target)
                    todo.append(target)
        return chain

    def _ancestors(self, spec: StepSpec) -> set[Ref]:
        found: set[Ref] = set()
        todo = list(spec.prerequisites)
        while todo:
            index = todo.pop()
            if (spec.recipe, index) not in found:
                found.add((spec.recipe, index))
                todo.extend(self.kitchen.step(spec.recipe, index).prerequisites)
        return found

    def allows(self, state: RecipesState, ref: Ref, start: int, end: int) -> bool:
        spec = self.kitchen.step(*ref)
        if not self._keeps_oven(state, spec):
            return False
        if not self.constraints:
            return True
        # Delay a window-opening step until its whole chain could follow.
        chain = self.closure.get(ref)
        if chain:
            for member in chain:
                for prerequisite in self.kitchen.step(*member).prerequisites:
                    other = (member[0], prerequisite)
                    if other == ref or other in chain or ref in self.ancestors[other]:
                        continue  # steps after the opener are done inside the window
                    if state.finished_at(*other) is None:
                        return False
        # While a window is open, start nothing that would block the waiting step past its deadline.
        for source, targets in self.windows.items():
            finished = state.finished_at(*source)
            if finished is None:
                continue
            for target, window in targets:
                if target == ref or state.remaining(*target) <= 0 or ref in self.ancestors[target]:
                    continue
                deadline = finished + window
                if end + self.slack <= deadline:
                    continue
                waiting = self.kitchen.step(*target)
                if not spec.autonomous:
                    return False  # the cook must be free to start the waiting step
                if {u.appliance for u in spec.uses} & {u.appliance for u in waiting.uses}:
                    return False
        return True

    def _keeps_oven(self, state: RecipesState, spec: StepSpec) -> bool:
        """Do not change an appliance's state while a step waits for the state it has now."""
        for use in spec.uses:
            if not use.update:
                continue
            current = state.appliance_props(use.appliance)
            for other in self.kitchen.all_steps():
                if state.remaining(other.recipe, other.index) <= 0:
                    continue
                for need in other.uses:
                    if need.appliance != use.appliance or not need.require:
                        continue
                    wanted = dict(need.require)
                    satisfied_now = all(current.get(k) == v for k, v in wanted.items())
                    after = {**current, **dict(use.update)}
                    if satisfied_now and not all(after.get(k) == v for k, v in wanted.items()):
                        return False
        return True


def plan_state(
    definition: Mapping[str, Any],
    *,
    time_constraints: bool = True,
    node_limit: int = NODE_LIMIT,
    work_limit: int = WORK_LIMIT,
) -> tuple[RecipesState | None, int, int]:
    state = initial_state(
        definition, options={"time_constraints": time_constraints, "max_rejections": 0, "max_repeats": 0}
    )
    return search(state, node_limit=node_limit, work_limit=work_limit)


def search(
    state: RecipesState,
    *,
    agent: int = 0,
    guards: bool | None = None,
    slack: int = 0,
    node_limit: int = NODE_LIMIT,
    work_limit: int = WORK_LIMIT,
) -> tuple[RecipesState | None, int, int]:
    """The heuristic's depth-first search from any state (a game under way included): the first
    finished state it reaches, with every step ``agent`` starts added as chunks, the nodes used and
    the step checks made. It gives up (None) after ``node_limit`` nodes, or once it has made
    ``work_limit`` step checks (a node under way is finished: a search stops within one node's
    checks past the limit).

    ``guards`` (default: the state's time-constraint option) turns the constraint delay rules on;
    a search without them still never spoils a recipe, it only finds fewer ways round a window.
    ``slack`` keeps that many seconds free before a waiting step's deadline, for a cook who reacts
    late (a person, or a planner playing at a person's pace)."""
    listed = priority_list(state.kitchen)
    rules = _Guards(state.kitchen, state.options.time_constraints if guards is None else guards, slack)
    names = [recipe.name for recipe in state.kitchen.recipes]
    nodes = checks = 0

    def children(current: RecipesState) -> list[RecipesState]:
        nonlocal checks
        options: list[RecipesState] = []
        for ref in listed:
            left = current.remaining(*ref)
            if left <= 0:
                continue
            checks += 1
            verdict = check_start(current, agent, StepAction(ref[1], names[ref[0]], left, current.time))
            if verdict.feedback is not None:
                continue
            if not rules.allows(current, ref, current.time, current.time + left):
                continue
            options.append(begin(verdict, agent)[0])
        moment = next_event_time(current)
        if moment is not None:
            options.append(advance(current, moment)[0])
        return options

    # Depth-first search with an explicit stack of child iterators (no recursion limit worries).
    stack: list[list[RecipesState]] = [[state]]
    while stack:
        if not stack[-1]:
            stack.pop()
            continue
        current = stack[-1].pop(0)
        nodes += 1
        if nodes > node_limit:
            return None, nodes, checks
        if current.status == FAILED:
            continue
        if current.all_complete() or current.status == SUCCESS:
            return current, nodes, checks
        if all(current.remaining(*ref) <= 0 for ref in listed):
            # everything started: let it run out
            end = max(c.end for c in current.chunks)
            finished, _ = advance(current, end)
            if finished.status == SUCCESS:
                return finished, nodes, checks
            continue
        if checks >= work_limit:
            return None, nodes, checks
        stack.append(children(current))
    return None, nodes, checks


def state_plan(state: RecipesState) -> list[PlanItem]:
    items = [
        (chunk.step, state.kitchen.recipes[chunk.recipe].name, chunk.end - chunk.start, chunk.start)
        for chunk in state.chunks
    ]
    return order(state, items)


def plan(
    definition: Mapping[str, Any],
    *,
    time_constraints: bool = True,
    node_limit: int = NODE_LIMIT,
    work_limit: int = WORK_LIMIT,
) -> HeuristicResult:
    began = time.perf_counter()
    final, nodes, checks = plan_state(
        definition, time_constraints=time_constraints, node_limit=node_limit, work_limit=work_limit
    )
    elapsed = time.perf_counter() - began
    if final is None:
        if nodes > node_limit:
            note = f"no feasible plan found within {node_limit} search nodes"
        elif checks >= work_limit:
            note = f"no feasible plan found within {work_limit} step checks"
        else:
            note = "no feasible plan"
        return HeuristicResult(None, None, nodes, elapsed, [note], checks)
    items = state_plan(final)
    return HeuristicResult(items, max(c.end for c in final.chunks), nodes, elapsed, checks=checks)


def plan_items(definition: Mapping[str, Any], *, time_constraints: bool = True) -> Sequence[PlanItem] | None:
    """The heuristic plan as [step, recipe, duration, start] items, or None if none was found."""
    return plan(definition, time_constraints=time_constraints).plan
