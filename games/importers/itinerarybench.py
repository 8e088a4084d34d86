"""Import ItineraryBench (TDAG): travel.db and data_type1/2/3.json -> catalogue + 364 scenarios.

``manage.py import_dataset itinerarybench ../shared/datasets/itinerarybench`` (the folder, or any
file in it). Scenario slugs are ``itinerarybench/type<N>-<INDEX>`` where INDEX is the sample's
position in data_typeN.json (so ``--sample type2:5`` is ``itinerarybench/type2-5``). Idempotent and,
through the command, atomic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from games.domains.itinerary.samples import definition_from_sample, sample_slug, title_of
from games.importers import ImportProblem, ImportSummary
from games.importers.itinerary_world import save_brief, save_world
from games.importers.itinerarybench_files import read_published

SOURCE = "itinerarybench"


def import_dataset(path: Path, log: Callable[[str], None] = print) -> ImportSummary:
    published = read_published(Path(path))
    summary = ImportSummary()
    save_world(SOURCE, published.tables, summary)
    count = 0
    for kind, samples in sorted(published.samples.items()):
        for index, sample in enumerate(samples):
            try:
                definition = definition_from_sample(kind, index, sample, published.tables)
            except (KeyError, ValueError) as error:
                raise ImportProblem(f"data_type{kind}.json sample {index}: {error}") from None
            save_brief(
                source=SOURCE,
                slug=sample_slug(kind, index),
                title=title_of(kind, index, definition),
                definition=definition,
                sample_index=index,
                settings=sample["demands"]["TravelSimulator"],
                summary=summary,
                log=log,
            )
            count += 1
    log(f"itinerarybench: {count} briefs")
    summary.notes.append(f"{count} briefs (scenarios itinerarybench/typeN-INDEX)")
    return summary
