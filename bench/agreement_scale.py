"""The agreement report at scale: 3,000 annotators, 600,000 labels (goal: < 10 s, < 500 MB).

Pure statistics (``annotations.agreement.report``) over synthetic ratings shaped like a real
project: 5,000 recipes of 10 steps, each recipe labelled by 3 of the 3,000 annotators, 4
properties. Reading the labels from the database is linear and measured in ``bench.annotations``.
"""

from __future__ import annotations

import os
import random
import resource
import time
import tracemalloc
from collections.abc import Callable

ANNOTATORS = 3000
RECIPES = 5000
STEPS = 10
PER_RECIPE = 3
PROPERTIES = {
    "concurrency": ["autonomous", "continuous"],
    "interruptibility": ["interruptible", "not_interruptible"],
    "resource": ["none", "oven", "stove", "microwave"],
    "time_constraint": ["none", "0:2", "1:3", "2:5", "3:2"],
}

Report = Callable[[str, float, str], None]


def synthetic(rng: random.Random) -> dict[str, dict[str, dict[str, str]]]:
    by_property: dict[str, dict[str, dict[str, str]]] = {prop: {} for prop in PROPERTIES}
    for recipe in range(RECIPES):
        team = rng.sample(range(ANNOTATORS), PER_RECIPE)
        for step in range(STEPS):
            for prop, values in PROPERTIES.items():
                truth = rng.choice(values)
                by_property[prop][f"r{recipe}/{step}"] = {
                    f"annotator-{a}": truth if rng.random() > 0.2 else rng.choice(values) for a in team
                }
    return by_property


def run(report: Report) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena_site.settings")
    from annotations import agreement

    ratings = synthetic(random.Random(15))
    labels = sum(len(v) for prop in ratings.values() for v in prop.values())
    report("agreement at scale: annotators", ANNOTATORS, "annotators")
    report("agreement at scale: labels", labels, "labels")
    started = time.perf_counter()
    result = agreement.report(ratings)
    report("agreement report, 3,000 annotators x 600k labels", time.perf_counter() - started, "s")
    tracemalloc.start()
    agreement.report(ratings)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    report("agreement report, peak memory allocated (tracemalloc)", peak / 2**20, "MB")
    report("process peak RSS (ratings + report)", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "MB")
    row = result["properties"]["concurrency"]
    report("pairs with Cohen's kappa (per property)", len(row["cohen_kappa"]), "pairs")
