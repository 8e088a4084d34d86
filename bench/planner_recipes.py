"""Recipes planners over Recipe2Plan's 65 instances: CP-SAT seconds per instance (median, worst),
how many it proves optimal, and the makespan it saves against the benchmark's heuristic.

Reads ``settings.DATASETS_DIR/recipe2plan/cooking.json`` (skipped when absent). Environment:
``BENCH_RECIPES_TIME_LIMIT`` (CP-SAT seconds per instance, default 10) and
``BENCH_RECIPES_WORKERS`` (CP-SAT threads, default 1).
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable
from pathlib import Path

Report = Callable[..., None]


def run(report: Report) -> None:
    import django

    django.setup()
    from django.conf import settings

    from games.domains.recipes.dataset import read_instances
    from games.domains.recipes.plan import execute_plan
    from games.planners import recipes_heuristic, recipes_optimal

    path = Path(settings.DATASETS_DIR) / "recipe2plan" / "cooking.json"
    if not path.exists():
        print(f"  skipped: {path} is absent (set ARENA_DATASETS_DIR)")
        return
    limit = float(os.environ.get("BENCH_RECIPES_TIME_LIMIT", "10"))
    workers = int(os.environ.get("BENCH_RECIPES_WORKERS", "1"))
    instances = read_instances(json.loads(path.read_text(encoding="utf-8")))
    print(f"  {len(instances)} instances, CP-SAT limit {limit:g} s, {workers} worker(s)")
    for constraints in (False, True):
        label = "with time constraints" if constraints else "without time constraints"
        solve_seconds, heuristic_seconds, saved, saved_share, proven, gaps, infeasible = [], [], [], [], 0, [], 0
        for definition in instances.values():
            heuristic = recipes_heuristic.plan(definition, time_constraints=constraints)
            solved = recipes_optimal.solve(definition, time_constraints=constraints, time_limit=limit, workers=workers)
            run_ = execute_plan(definition, solved.plan or [], time_constraints=constraints)
            infeasible += not (run_.feasible and run_.state.status == "success")
            heuristic_seconds.append(heuristic.solve_seconds)
            solve_seconds.append(solved.solve_seconds)
            proven += solved.optimal
            if not solved.optimal:
                gaps.append(solved.gap or 0.0)
            if heuristic.makespan and solved.makespan:
                saved.append(heuristic.makespan - solved.makespan)
                saved_share.append((heuristic.makespan - solved.makespan) / heuristic.makespan)
        report(f"optimal planner, {label}: median seconds/instance", statistics.median(solve_seconds), "s")
        report(f"optimal planner, {label}: worst seconds/instance", max(solve_seconds), "s")
        report(f"optimal planner, {label}: proven optimal", proven, f"of {len(instances)}")
        report(f"optimal planner, {label}: worst gap when not proven", 100 * max(gaps, default=0.0), "%")
        report(f"optimal planner, {label}: plans failing replay", infeasible, "")
        report(f"heuristic, {label}: median seconds/instance", statistics.median(heuristic_seconds), "s")
        report(f"makespan saved vs heuristic, {label}: mean", statistics.mean(saved), "s")
        report(f"makespan saved vs heuristic, {label}: mean share", 100 * statistics.mean(saved_share), "%")
