"""Certifying generated instances: CP-SAT solve time against size, and where proofs stop.

Tasks instances of 5, 10, 20, 50 and 100 actions (four per size, seed 0, default knobs; then two harder
settings: 2 agents and 3 agents with one of each appliance and shared objects) and recipe pairs of
5, 10, 20 and 30 steps each (64 per size: four per seed, seeds 0-15). Each solve gets
``manage.py generate``'s budget for 10 s (the issue's target): the deterministic work of about 10 s
on the reference machine, so which instances are proven is the same on every machine and the
printed seconds say how long that work takes on this one. A size where some instance is not proven
optimal within the budget is reported as where proofs stop. Single-threaded solver.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from games.generators.family import generate

PER_SIZE = 4
CAP = 10.0


def _sizes(
    report: Callable[..., None],
    domain: str,
    label: str,
    key: str,
    sizes: list[int],
    knobs: dict[str, Any],
    seeds: range = range(1),
) -> None:
    stopped = None
    for size in sizes:
        instances = [
            instance
            for seed in seeds
            for instance in generate(domain, count=PER_SIZE, seed=seed, knobs={**knobs, key: size}, max_seconds=CAP)
        ]
        seconds = [i["solve_seconds"] for i in instances]
        proven = sum(i["optimal"] for i in instances)
        actions = statistics.mean(i["stats"]["actions"] for i in instances)
        report(f"{label}, {size:>3} {key} ({actions:.0f} actions): median solve", statistics.median(seconds), "s")
        report(f"{label}, {size:>3} {key}: slowest solve", max(seconds), "s")
        proofs = [i["solve_seconds"] for i in instances if i["optimal"]]
        if proofs and len(proofs) < len(instances):
            report(f"{label}, {size:>3} {key}: slowest proof", max(proofs), "s")
        report(f"{label}, {size:>3} {key}: proven optimal", proven, f"of {len(instances)}")
        if proven < len(instances) and stopped is None:
            stopped = size
    where = f"first unproven instance at {stopped} {key}" if stopped else f"all proven up to {sizes[-1]} {key}"
    print(f"  {label}: {where} (budget of {CAP:g} s)", flush=True)


def run(report: Callable[..., None]) -> None:
    sizes = [5, 10, 20, 50, 100]
    _sizes(report, "tasks", "tasks, 1 agent", "actions", sizes, {})
    _sizes(report, "tasks", "tasks, 2 agents", "actions", sizes, {"agents": 2})
    hard = {"agents": 3, "constrained": True, "sharing": 0.5, "depth": 6, "branching": 3, "per_task": 12}
    _sizes(report, "tasks", "tasks, 3 agents, constrained", "actions", sizes, hard)
    _sizes(report, "recipes", "recipe pairs", "steps", [5, 10, 20, 30], {}, seeds=range(16))
