"""Our own small travel world and its briefs (games/content/itinerary/), loaded on every fresh install.

``world.json`` holds four fictional towns (places with opening hours, in-city transfer minutes) and
daily train services, expanded into dated runs numbered ``<service>-<MMDD>``; ``briefs.json`` holds
the briefs, written in the published samples' shape so they become scenarios (``bundled/<name>``)
exactly as ItineraryBench samples do (reading them: ``itinerary_content``). Format: docs/scenarios.md.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from games.importers import ImportSummary
from games.importers.itinerary_content import FOLDER, SOURCE, definitions, read_world
from games.importers.itinerary_world import save_brief, save_world

__all__ = ["definitions", "load"]


def load(log: Callable[[str], None] = print) -> int:
    summary = ImportSummary()
    changed = 0
    with transaction.atomic():
        save_world(SOURCE, read_world(FOLDER / "world.json"), summary)
        for brief, definition in definitions():
            changed += save_brief(
                source=SOURCE,
                slug=f"bundled/{brief['name']}",
                title=brief["title"],
                definition=definition,
                sample_index=None,
                settings=brief["settings"],
                summary=summary,
                log=log,
            )
    log(f"itinerary: {changed} bundled briefs changed ({summary})")
    return changed
