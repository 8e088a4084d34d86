"""The Recipe2Plan relaxation again, time-indexed: is there a schedule of makespan ``below`` or less?

``games.planners.recipes_optimal`` proves a plan optimal by showing that its relaxation has no
schedule one unit shorter. Its interval model cannot show that when the cook would have to be busy
almost every minute (30-step pair s5-004: the cook's work is 164 minutes, the best plan 165; 150 s
of search found neither a 164-minute schedule nor a proof that none exists). This model asks the
same question unit by unit, so that such a packing is a puzzle of exact covers:

- every unit of ``[0, below)`` is exactly one of: a unit of a continuous step's work, or idle, and
  exactly ``below`` minus the cook's work units are idle (so with no slack the cook is never idle);
- a non-interruptible continuous step starts at exactly one unit and covers its length from there;
  an interruptible one is any units between its first start and its last end (chunks of any number);
- an autonomous step starts at exactly one unit, never strictly inside a non-interruptible step (the
  cook, busy, cannot start anything), and its appliance is not in use;
- prerequisites, and time windows (every chunk of a step starts within the window);
- every step's end is at most ``below``.

It is the relaxation of ``recipes_optimal`` (interruptible steps off the appliances, no appliance
state rule), also leaving off the appliance any preheat that could share an identical one of another
recipe: every real plan on whole units is one of its schedules, so "no schedule" proves that no plan
is that short. With one unit of slack or none its exact-one-per-unit rows propagate what the
intervals cannot: it refutes s5-004's 164 minutes in about 2 s, so ``recipes_optimal`` asks it first
there (``SLACK``). With more idle units its rows are looser, but on smaller pairs it still settles
what the interval search does not (a 10-step pair: 87 minutes refuted in 1.4 s, where the interval
relaxation was stuck at 85 after 30 s), so it also gets a share after the fixed search. It grows
with steps x units, so it is built only up to ``CELLS`` cells.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from games.domains.recipes.kitchen import Kitchen

Ref = tuple[int, int]
# Largest model built: (steps) x (units of the horizon) cells (a 30-step pair of 165 minutes: 10k).
CELLS = 40_000
# Tried first when the cook may be idle at most this many units in ``below`` (beyond it the idle
# units make the covers loose, and the interval model's fixed search goes first).
SLACK = 1


def cook_work(kitchen: Kitchen, unit: int) -> int:
    """The units of work the cook must do (every step that does not run by itself)."""
    return sum(s.duration // unit for s in kitchen.all_steps() if not s.autonomous)


def model(
    kitchen: Kitchen,
    unit: int,
    below: int,
    *,
    time_constraints: bool,
    heads: dict[Ref, int],
    tails: dict[Ref, int],
) -> cp_model.CpModel | None:
    """The feasibility model of a schedule of makespan at most ``below`` units, or None when it would
    be too large or ``below`` is less than the cook's work (``heads``/``tails``: each step's longest
    chain of durations before and after it, in units)."""
    steps = kitchen.all_steps()
    idle = below - cook_work(kitchen, unit)
    if idle < 0 or len(steps) * below > CELLS:
        return None
    m = cp_model.CpModel()
    start: dict[Ref, cp_model.LinearExprT] = {}
    end: dict[Ref, cp_model.LinearExprT] = {}
    covers: list[list[cp_model.IntVar]] = [[] for _ in range(below)]
    inside: list[list[cp_model.IntVar]] = [[] for _ in range(below)]  # a solid step covers t-1 and t
    begins: dict[Ref, list[tuple[int, cp_model.IntVar]]] = {}  # interruptible: a chunk begins at t
    autonomous: dict[Ref, list[tuple[int, cp_model.IntVar]]] = {}
    for spec in steps:
        ref = (spec.recipe, spec.index)
        length = spec.duration // unit
        first, last = heads[ref], below - length - tails[ref]
        if first > last:  # its chain of steps alone is longer than ``below``
            m.add_bool_or([])
            return m
        if spec.interruptible and not spec.autonomous:
            start[ref] = m.new_int_var(first, last, "")
            end[ref] = m.new_int_var(first + length, below - tails[ref], "")
            worked, previous = [], None
            for t in range(first, below - tails[ref]):
                busy = m.new_bool_var("")
                m.add(start[ref] <= t).only_enforce_if(busy)
                m.add(end[ref] >= t + 1).only_enforce_if(busy)
                begin = m.new_bool_var("")
                m.add_bool_or([~busy, begin] if previous is None else [~busy, previous, begin])
                begins.setdefault(ref, []).append((t, begin))
                covers[t].append(busy)
                worked.append(busy)
                previous = busy
            m.add(sum(worked) == length)
            continue
        if spec.interruptible:  # interruptible and autonomous: any span of at least its length
            start[ref] = m.new_int_var(first, last, "")
            end[ref] = m.new_int_var(first + length, below - tails[ref], "")
            m.add(end[ref] >= start[ref] + length)
            continue
        at = [(t, m.new_bool_var("")) for t in range(first, last + 1)]
        m.add_exactly_one(chosen for _, chosen in at)
        start[ref] = m.new_int_var(first, last, "")
        m.add(start[ref] == sum(t * chosen for t, chosen in at))
        end[ref] = start[ref] + length
        if spec.autonomous:
            autonomous[ref] = at
        else:
            for t, chosen in at:
                for u in range(t, t + length):
                    covers[u].append(chosen)
                for u in range(t + 1, t + length):
                    inside[u].append(chosen)
    for t in range(below):
        if idle:
            covers[t].append(m.new_bool_var(f"idle_{t}"))
        m.add_exactly_one(covers[t])
    if idle:
        m.add(sum(row[-1] for row in covers) == idle)
    for at in autonomous.values():
        for t, chosen in at:
            if inside[t]:
                m.add_at_most_one([chosen, *inside[t]])

    for spec in steps:
        ref = (spec.recipe, spec.index)
        for prerequisite in spec.prerequisites:
            m.add(start[ref] >= end[(spec.recipe, prerequisite)])
        if not time_constraints:
            continue
        for source, window in spec.time_constraints:
            latest = end[(spec.recipe, source)] + window // unit
            m.add(start[ref] <= latest)
            for t, begin in begins.get(ref, []):
                m.add(latest >= t).only_enforce_if(begin)

    for appliance, _ in kitchen.appliances:
        uses = [(s, next((u for u in s.uses if u.appliance == appliance), None)) for s in steps]
        alone = [
            s
            for s, use in uses
            if use is not None
            and not s.interruptible
            and not (
                use.update
                and any(o.recipe != s.recipe and o.duration == s.duration and other == use for o, other in uses)
            )
        ]
        m.add_no_overlap(
            m.new_fixed_size_interval_var(start[(s.recipe, s.index)], s.duration // unit, "") for s in alone
        )
    return m
