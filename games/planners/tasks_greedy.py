"""TimeArena's greedy oracle (SPEC section 2), reproduced exactly: the paper's reference plan.

One agent. For every ordering of the type 2 (background) actions — the duration-sorted one
(longest first, ties in definition order) then every other permutation — build a priority list:
for each type 2 action in order, its not-yet-listed prerequisite chain (breadth-first walk over the
prerequisites, listed deepest first), then the action; then the same for every remaining action.
Simulate from t = 0: start the first unstarted action of the list whose prerequisites all ended
strictly before t (an action running [s, e] ends at e, inclusive); a type 2 action costs the agent
one minute and runs [t, t+d-1]; a type 1 action occupies it d minutes; when nothing can start the
clock moves on. The makespan is the last end + 1; the best ordering wins (the first on ties).

Like the published oracle, this ignores object locks and shared appliances, so its plan can be
infeasible under the full rules: ``games.domains.tasks.oracle.check_schedule`` says where.

Two implementation notes that do not change the result: when nothing can start, the clock jumps to
the next minute at which some running action has ended (the published code steps one minute at a
time through minutes where nothing can change), and duplicate entries of the priority list (the
published code lists some prerequisites twice) are dropped because only a first occurrence can
ever be chosen. The published code treats a prerequisite that never started as ended at t=100; no
published combination comes near t=100, and we treat it as not ended.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from games.domains.tasks.definition import Compiled


@dataclass(frozen=True, slots=True)
class Step:
    action: int
    start: int
    end: int  # exclusive: the minute the action is complete (the paper's inclusive end + 1)


@dataclass(frozen=True, slots=True)
class GreedyPlan:
    makespan: int
    steps: tuple[Step, ...]
    ordering: tuple[int, ...]  # the winning order of type 2 actions
    orderings_tried: int
    solve_seconds: float


def _chain(action: int, requires: Sequence[Sequence[int]]) -> list[int]:
    """The action and its transitive prerequisites, breadth-first, listed deepest first."""
    visited: set[int] = set()
    queue = deque([action])
    found: list[int] = []
    while queue:
        current = queue.popleft()
        if current in visited:
            continue
        visited.add(current)
        queue.extend(parent for parent in requires[current] if parent not in visited)
        found.append(current)
    return found[::-1]


def priority_list(ordering: Sequence[int], requires: Sequence[Sequence[int]], count: int) -> list[int]:
    listed: list[int] = []
    seen: set[int] = set()
    for action in [*ordering, *range(count)]:
        if action in seen:
            continue
        for step in _chain(action, requires):
            if step not in seen:
                seen.add(step)
                listed.append(step)
    return listed


def simulate(
    order: Sequence[int], minutes: Sequence[int], background: Sequence[bool], requires: Sequence[Sequence[int]]
) -> list[Step]:
    """One pass of the oracle's clock over a priority list; returns the steps in start order."""
    never = 1 << 30
    ready_at = [never] * len(minutes)  # the paper's end + 1: from this minute on, dependents may start
    pending = list(order)
    steps: list[Step] = []
    now = 0
    while pending:
        for position, action in enumerate(pending):
            if all(ready_at[parent] <= now for parent in requires[action]):
                del pending[position]
                ready_at[action] = now + minutes[action]
                steps.append(Step(action, now, now + minutes[action]))
                now += 1 if background[action] else minutes[action]
                break
        else:
            upcoming = [at for at in ready_at if now < at < never]
            if not upcoming:
                raise ValueError("the prerequisites cannot be satisfied")
            now = min(upcoming)
    return steps


def plan(scenario: Compiled) -> GreedyPlan:
    """The greedy oracle's best plan for a compiled scenario (objects and appliances ignored)."""
    started = time.perf_counter()
    actions = scenario.actions
    minutes = [a.minutes for a in actions]
    background = [a.background for a in actions]
    requires = [a.requires for a in actions]
    type2 = sorted((a.index for a in actions if a.background), key=lambda i: minutes[i], reverse=True)
    best: tuple[int, list[Step], tuple[int, ...]] | None = None
    tried = 0
    # Orderings often collapse to the same priority list (a type 2 action listed early as another's
    # prerequisite); each distinct list is simulated once.
    seen: dict[tuple[int, ...], int] = {}
    for ordering in permutations(type2):
        tried += 1
        listed = tuple(priority_list(ordering, requires, len(actions)))
        if listed in seen:
            continue
        steps = simulate(listed, minutes, background, requires)
        makespan = seen[listed] = max(step.end for step in steps)
        if best is None or makespan < best[0]:
            best = (makespan, steps, ordering)
    assert best is not None
    return GreedyPlan(
        makespan=best[0],
        steps=tuple(best[1]),
        ordering=best[2],
        orderings_tried=tried,
        solve_seconds=time.perf_counter() - started,
    )
