"""Annotation figures on a large synthetic project: CSV import, agreement report, streamed export.

Without DATABASE_URL the figures come from a throw-away SQLite file; with it, from that database
(the synthetic project is deleted afterwards either way).
"""

from __future__ import annotations

import os
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable

RECIPES = 400
STEPS = 10
ANNOTATORS = 5
PROPERTIES = ["concurrency", "interruptibility", "resource", "time_constraint"]
NAME = "bench: synthetic agreement"

Report = Callable[[str, float, str], None]


def _setup_django() -> None:
    from django.conf import settings

    if not settings.configured and not os.environ.get("DATABASE_URL"):
        os.environ["ARENA_VAR_DIR"] = tempfile.mkdtemp(prefix="arena-bench-annotations-")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _label(rng: random.Random, prop: str, truth: str, step: int) -> str:
    if rng.random() > 0.15:
        return truth
    return {
        "concurrency": "continuous" if truth == "autonomous" else "autonomous",
        "interruptibility": "interruptible" if truth == "not_interruptible" else "not_interruptible",
        "resource": "none" if truth != "none" else "stove",
        "time_constraint": "none" if truth != "none" else f"{1 if step == 0 else 0}:2",
    }[prop]


def synthetic_csv(rng: random.Random) -> list[str]:
    lines = ["item_id,annotator,property,label"]
    for r in range(RECIPES):
        for s in range(STEPS):
            truth = {
                "concurrency": rng.choice(["autonomous", "continuous"]),
                "interruptibility": rng.choice(["interruptible", "not_interruptible"]),
                "resource": rng.choice(["none", "none", "oven", "stove", "microwave"]),
                "time_constraint": f"{s - 1}:{rng.choice([2, 3, 5])}" if s and rng.random() < 0.2 else "none",
            }
            for a in range(ANNOTATORS):
                for prop in PROPERTIES:
                    lines.append(f"Synthetic-{r}/{s},bench-annotator-{a},{prop},{_label(rng, prop, truth[prop], s)}")
    return [line + "\n" for line in lines]


def run(report: Report) -> None:
    _setup_django()
    from annotations import agreement, selectors
    from annotations.exports import csv_lines
    from annotations.importing import import_labels
    from annotations.models import Annotator, Project
    from annotations.reports import agreement_report

    Project.objects.filter(name=NAME).delete()
    lines = synthetic_csv(random.Random(7))
    labels = len(lines) - 1
    report("synthetic labels", labels, "labels")
    try:
        started = time.perf_counter()
        import_labels(NAME, lines)
        elapsed = time.perf_counter() - started
        report("import_annotations (CSV, all rows checked, one transaction)", elapsed, "s")
        report("import rate", labels / elapsed, "labels/s")
        project = Project.objects.get(name=NAME)

        started = time.perf_counter()
        ratings = selectors.ratings(project)
        report("load submitted labels for the report", time.perf_counter() - started, "s")
        started = time.perf_counter()
        data = agreement.report(ratings)
        report("agreement statistics (4 properties + overall)", time.perf_counter() - started, "s")
        started = time.perf_counter()
        agreement_report(project)
        report("agreement_report end to end", time.perf_counter() - started, "s")
        report(
            "  Fleiss' kappa, concurrency (15% noise per label)", data["properties"]["concurrency"]["fleiss_kappa"], ""
        )

        tracemalloc.start()
        started = time.perf_counter()
        size = sum(len(chunk) for chunk in csv_lines(project))
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        report("CSV export (streamed)", elapsed, "s")
        report("CSV export size", size / 1e6, "MB")
        report("CSV export peak Python memory", peak / 1e6, "MB")
    finally:
        Project.objects.filter(name=NAME).delete()
        Annotator.objects.filter(name__startswith="bench-annotator-").delete()
