"""What a scenario's planners make of it, for the studio's preview (plain Python, no Django).

tasks and recipes: the CP-SAT optimum as a timeline, with its makespan and whether it is proven;
kitchen: the heuristic dispatcher's CoS over the five α values; itinerary: the planner's plan and
its score under the rules. Solvers are capped (``max_seconds``) so a preview answers while typing.
Each ``preview_<domain>(definition, agents, max_seconds)`` is part of its domain's authoring
``Format`` (``games.studio.formats``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.domains.recipes.text import recipe_title, short_titles
from games.engine.durations import short_clock
from games.timeline import label_fit, least_fit

Bar = dict[str, Any]


def timeline(
    rows: list[tuple[str, list[Bar]]], span: float, unit: str, tick_text: Callable[[float], str] | None = None
) -> dict[str, Any]:
    """Rows of bars placed in percent of ``span``; overlapping bars of a row go to extra lanes.
    ``tick_text`` writes the axis (a trip's clock: "07:00", "d2 06:00"); numbers without it."""
    span = max(span, 1)
    drawn = []
    for label, bars in rows:
        lanes: list[list[Bar]] = []
        for bar in sorted(bars, key=lambda b: (b["start"], b["end"])):
            bar = {
                **bar,
                "left": 100 * bar["start"] / span,
                "width": max(0.6, 100 * (bar["end"] - bar["start"]) / span),
                "fit": label_fit(bar["label"]),  # a bar with a "short" label shows it when narrow
                "least": least_fit(bar["label"], bar.get("short", "")),  # ... and nothing when too narrow for that
            }
            lane = next((lane for lane in lanes if lane[-1]["end"] <= bar["start"]), None)
            if lane is None:
                lanes.append([bar])
            else:
                lane.append(bar)
        drawn.append({"label": label, "lanes": lanes or [[]]})
    if tick_text is None:
        step = next((s for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600) if span / s <= 12), 7200)
    else:  # clock times are wider than numbers: fewer, on whole hours or days
        step = next((s for s in (15, 30, 60, 120, 180, 360, 720, 1440, 2880) if span / s <= 6), 5760)
    ticks = [{"at": tick_text(t) if tick_text else t, "left": 100 * t / span} for t in range(0, int(span) + 1, step)]
    return {"rows": drawn, "span": span, "unit": unit, "ticks": ticks}


def preview_tasks(definition: dict[str, Any], agents: int, max_seconds: float) -> dict[str, Any]:
    from games.domains.tasks.definition import compile_definition
    from games.domains.tasks.rules import MINUTES_PER_TASK
    from games.generators.tasks import heuristic
    from games.planners import tasks_optimal

    scenario = compile_definition(definition)
    greedy, starts = heuristic(definition, {"constrained": False, "agents": agents})
    limit = MINUTES_PER_TASK * len(definition.get("tasks", [])) or MINUTES_PER_TASK
    best = tasks_optimal.plan(scenario, agents=agents, max_seconds=max_seconds, hint=starts or None, upper_bound=greedy)
    rows: dict[int, list[Bar]] = {agent: [] for agent in range(agents)}
    for entry in best.entries:
        action = scenario.actions[entry.action]
        rows[entry.agent].append(
            {
                "label": action.text,
                "start": entry.start,
                "end": entry.end,
                "kind": "background" if action.background else "occupying",
                "tip": f"{action.text}: {entry.start}-{entry.end} min" + (" (background)" if action.background else ""),
            }
        )
    return {
        "kind": "timeline",
        "makespan": best.makespan,
        "unit": "min",
        "optimal": best.optimal,
        "lower_bound": best.lower_bound,
        "heuristic": greedy,
        "heuristic_name": "planner NPC (critical path)",
        # a game ends at the time limit (TimeArena's 40 minutes per task): a task whose best plan is
        # longer can never be finished, and the planner's row read "no plan min" without saying why
        "time_limit": limit,
        "heuristic_missing": f"not finished within the game's {limit}-minute limit" if greedy is None else "",
        "over_limit": best.makespan is not None and best.makespan > limit,
        "solve_seconds": round(best.solve_seconds, 3),
        "timeline": timeline([(f"Agent {a + 1}", bars) for a, bars in rows.items()], best.makespan or 1, "min"),
        "plan_text": [f"t={e.start}: agent {e.agent + 1} {scenario.actions[e.action].text}" for e in best.entries],
        "agents": agents,
    }


def preview_recipes(definition: dict[str, Any], agents: int, max_seconds: float) -> dict[str, Any]:
    from games.domains.recipes.kitchen import load_kitchen
    from games.planners import recipes_heuristic, recipes_optimal

    heuristic = recipes_heuristic.plan(definition, time_constraints=True)
    best = recipes_optimal.solve(definition, time_constraints=True, time_limit=max_seconds, heuristic=heuristic)
    kitchen = load_kitchen(definition)
    short = short_titles([recipe_title(r.name) for r in kitchen.recipes])
    cook: list[Bar] = []
    itself: list[Bar] = []
    texts: dict[tuple[str, int], str] = {}
    for step, recipe, duration, start in best.plan or []:
        spec = kitchen.step(kitchen.recipe_index(recipe) or 0, step)
        title = recipe_title(recipe)
        bar = {
            "label": f"{title} step {step}",  # as the game's timeline names it
            "short": f"{short.get(title, title)} {step}",
            "start": start / 60,
            "end": (start + duration) / 60,
            "kind": "background" if spec.autonomous else "occupying",
            "tip": f"{recipe} step {step}: {spec.text} ({start // 60}-{(start + duration) // 60} min)",
        }
        (itself if spec.autonomous else cook).append(bar)
        texts[(recipe, step)] = spec.text
    span = (best.makespan or 60) / 60
    return {
        "kind": "timeline",
        "makespan": _minutes(best.makespan),
        "unit": "min",
        "optimal": best.optimal,
        "lower_bound": _minutes(best.bound),
        "heuristic": _minutes(heuristic.makespan),
        "heuristic_name": "Recipe2Plan heuristic",
        "solve_seconds": round(best.solve_seconds, 3),
        "timeline": timeline([("Cook", cook), ("By itself", itself)], span, "min"),
        # as the game writes it ("12:30: Lemonade step 3 (Squeeze the lemons.) for 0:30"): it read
        # "12 min: Lemonade step 3 for 0 min"
        "plan_text": [
            f"{short_clock(s)}: {recipe_title(r)} step {i} ({texts[(r, i)]}) for {short_clock(d)}"
            for i, r, d, s in best.plan or []
        ],
        "agents": 1,
    }


def _minutes(seconds: float | None) -> float | int | None:
    """Seconds as minutes, whole ones without a decimal point ("38 min", not "38.0 min")."""
    if seconds is None:
        return None
    value = round(seconds / 60, 2)
    return int(value) if float(value).is_integer() else value


def preview_kitchen(definition: dict[str, Any], agents: int, max_seconds: float) -> dict[str, Any]:
    from games.planners.kitchen_dispatcher import heuristic
    from games.planners.kitchen_sweep import sweep

    own = int(definition.get("agents") or 1)
    level_agents = agents < 1  # "the level's own" (0) in the editor's menu
    agents = own if level_agents else agents
    found = sweep(definition, heuristic, agents=agents, episodes=1)
    return {
        "kind": "kitchen",
        "cos": found["cos"],
        "agents": agents,
        "level_agents": level_agents,
        "by_alpha": [{"alpha": alpha, **row} for alpha, row in found["by_alpha"].items()],
        "solve_seconds": found["seconds"],
    }


def preview_itinerary(definition: dict[str, Any], agents: int, max_seconds: float) -> dict[str, Any]:
    from games.domains.itinerary.tools import check_plan
    from games.itinerary_view import time_left
    from games.planners.itinerary_search import plan

    found = plan(definition)
    checked = check_plan(definition, found.actions) if found.feasible else None
    drawn = trip_timeline(definition, found.actions) if found.feasible else None
    return {
        "timeline": drawn[0] if drawn else None,
        "value_text": time_left(round(found.value)) if found.value is not None and found.objective == "time" else "",
        "plan_text": drawn[1] if drawn else [],
        "kind": "itinerary",
        "feasible": found.feasible,
        "reason": found.reason,
        "objective": found.objective,
        "value": found.value,
        "plan": found.actions,
        "score": checked["total"] if checked else None,
        "failed_checks": checked["failed_checks"] if checked else [],
        "solve_seconds": round(found.solve_seconds, 3),
    }


def _staying(where: str, start: float, end: float, when: str) -> Bar:
    """The time a plan leaves between two actions, spent where the first left the traveller: a
    wait, as the game draws a stay ("In Stonegate", a city's days between two trains)."""
    from games.itinerary_view import staying_label

    return {
        "label": staying_label(where),
        "short": where,
        "start": start,
        "end": end,
        "kind": "wait",
        "tip": f"{staying_label(where)}: {when}",
    }


def trip_timeline(definition: dict[str, Any], actions: list[str]) -> tuple[dict[str, Any], list[str]] | None:
    """The planner's plan as the game draws a trip: one row of legs, visits and stays on the trip's
    clock ("07:00", or "d2 06:00" on a trip of several days), the time between two actions as a
    wait where the first left the traveller ("In Stonegate"), and the actions as lines ("07:00–07:09
    Go to Old Town Walls"), not ``go_to_place(..., 2024-05-02 07:00, ...)``."""
    from games.itinerary_view import clock_text, leg_label, short_label, span_of, span_text, where_after

    # the trip's clock as the game page has it (the observation's "clock" carries the same two times)
    trip = {"clock": {"begin": definition.get("begin"), "end": definition.get("end")}}
    clock, short, times_of = clock_text(trip), clock_text(trip, short=True), span_of(trip)
    bars: list[Bar] = []
    lines = []
    here, since = "", None  # where the traveller is between actions, from when
    for action in actions:
        span = times_of({"action": action})
        if span is None:
            continue
        start, finish = span
        if here and since is not None and start > since:  # the plan leaves time between two actions
            bars.append(_staying(here, since, start, span_text(clock, since, start)))
        label = leg_label(action)
        when = span_text(clock, start, finish)
        here, since = where_after(action), finish
        bars.append(
            {
                "label": label,
                "short": short_label(label),
                "start": start,
                "end": finish,
                "kind": "wait" if action.startswith("stay_in") else "occupying",
                "tip": f"{label}: {when}",
            }
        )
        lines.append(f"{when} {label}")
    if not bars:
        return None

    def tick(minute: float) -> str:  # a day's start reads "d2" (there is no room for "d2 00:00")
        return short(minute).removesuffix(" 00:00")

    return timeline([("Traveller", bars)], max(b["end"] for b in bars), "", tick_text=tick), lines
