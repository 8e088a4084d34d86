"""Run every benchmark module listed in BENCHMARKS and print its figures.

Each module has ``run(report)`` where ``report(name, value, unit)`` prints one figure. A module
that is missing (its feature not built yet) is skipped. ``python -m bench NAME`` runs one.
"""

from __future__ import annotations

import os
import sys
import time
from importlib import import_module

BENCHMARKS = [
    "bench.engine_tasks",
    "bench.engine_speed",
    "bench.side_by_side",
    "bench.planner_tasks",
    "bench.planner_recipes",
    "bench.kitchen",
    "bench.planner_itinerary",
    "bench.websocket_load",
    "bench.dispatcher",
    "bench.study_exports",
    "bench.annotations",
    "bench.generated_instances",
    "bench.agreement_scale",
]


def report(name: str, value: float, unit: str = "") -> None:
    print(f"  {name:<58} {value:>14.4g} {unit}", flush=True)


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena_site.settings")
    selected = [f"bench.{name}" for name in argv] or BENCHMARKS
    for module_name in selected:
        try:
            module = import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name == module_name:
                continue
            raise
        print(f"== {module_name.split('.', 1)[1]}", flush=True)
        started = time.perf_counter()
        module.run(report)
        print(f"  (took {time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
