"""Planner speed on TimeArena's published combinations (reads ../shared/datasets; skipped without it)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from django.conf import settings

from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.rules import RULES
from games.domains.tasks.timearena import combinations, read
from games.engine.episode import play
from games.planners import tasks_greedy, tasks_optimal
from games.planners.tasks_npc import npc_policy


def run(report: Callable[[str, float, str], None]) -> None:
    path = settings.DATASETS_DIR / "timearena" / "dependencygraph.json"
    if not path.exists():
        print(f"  (skipped: {path} not found; set ARENA_DATASETS_DIR)")
        return
    definitions, _ = read(json.loads(path.read_text()))
    combos = combinations(list(definitions))
    for constrained in (False, True):
        mode = "constrained" if constrained else "shared"
        times, proven = [], 0
        for combo in combos:
            scenario = compile_definition(compose([definitions[n] for n in combo]), constrained=constrained)
            best = tasks_optimal.plan(scenario)
            times.append(best.solve_seconds)
            proven += best.optimal
        report(f"optimal, 1 agent, {mode}: mean seconds per combo ({len(combos)})", statistics.mean(times), "s")
        report(f"optimal, 1 agent, {mode}: slowest combo", max(times), "s")
        report(f"optimal, 1 agent, {mode}: combos proven optimal", proven, f"of {len(combos)}")
    for agents in (2, 3):
        times, proven = [], 0
        for combo in combos:
            scenario = compile_definition(compose([definitions[n] for n in combo]))
            best = tasks_optimal.plan(scenario, agents=agents, max_seconds=10)
            times.append(best.solve_seconds)
            proven += best.optimal
        report(f"optimal, {agents} agents, shared: median seconds per combo", statistics.median(times), "s")
        report(f"optimal, {agents} agents, shared: combos proven optimal (10 s cap)", proven, f"of {len(combos)}")
    gaps = []
    for combo in combos:
        definition = compose([definitions[n] for n in combo])
        episode = play(RULES, definition, {0: npc_policy})
        best = tasks_optimal.plan(compile_definition(definition))
        if RULES.outcome(episode.state).terminated and best.makespan:
            gaps.append(episode.state.time / best.makespan - 1)
    report("planner NPC (critical path), 1 agent: combos completed", len(gaps), f"of {len(combos)}")
    report("planner NPC (critical path), 1 agent: mean makespan above optimum", 100 * statistics.mean(gaps), "%")
    started = time.perf_counter()
    for combo in combos:
        tasks_greedy.plan(compile_definition(compose([definitions[n] for n in combo])))
    report("greedy oracle: seconds for all 90 combos", time.perf_counter() - started, "s")
