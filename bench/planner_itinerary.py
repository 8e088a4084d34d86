"""Itinerary planner speed: seconds per brief, median and worst, per ItineraryBench sample type
(read straight from ../shared/datasets; skipped when absent) and for our bundled briefs."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

Report = Callable[..., None]


def _measure(report: Report, label: str, briefs: list[dict[str, Any]]) -> None:
    from games.planners.itinerary_search import plan

    seconds, feasible = [], 0
    for brief in briefs:
        result = plan(brief)
        seconds.append(result.solve_seconds)
        feasible += result.feasible
    report(f"itinerary planner {label}: briefs", len(briefs))
    report(f"itinerary planner {label}: with a feasible plan", feasible)
    report(f"itinerary planner {label}: median", statistics.median(seconds), "s")
    report(f"itinerary planner {label}: worst", max(seconds), "s")


def run(report: Report) -> None:
    from django.conf import settings

    from games.domains.itinerary.samples import definition_from_sample
    from games.importers.itinerary_content import definitions
    from games.importers.itinerarybench_files import read_published

    _measure(report, "bundled", [definition for _brief, definition in definitions()])
    folder = Path(settings.DATASETS_DIR) / "itinerarybench"
    if not folder.is_dir():
        print(f"  (no published data at {folder}; set ARENA_DATASETS_DIR to measure ItineraryBench)")
        return
    published = read_published(folder)
    for kind, samples in sorted(published.samples.items()):
        briefs = [definition_from_sample(kind, i, sample, published.tables) for i, sample in enumerate(samples)]
        _measure(report, f"type{kind}", briefs)
