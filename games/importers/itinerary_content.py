"""Reading our own travel world and briefs (games/content/itinerary/) into scenario definitions.

Pure apart from reading the two files (no Django), so planners, benchmarks and tests use it too;
``bundled_itinerary.load`` stores the result. Format: docs/scenarios.md, section itinerary.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from games.bundled import CONTENT_DIR
from games.domains.itinerary.samples import Tables, definition_from_sample
from games.domains.itinerary.world import TIME_FORMAT

SOURCE = "bundled"
FOLDER = CONTENT_DIR / "itinerary"


def read_world(path: Path) -> Tables:
    raw = json.loads(path.read_text(encoding="utf-8"))
    places: list[tuple[str, str, str, int, int]] = []
    transfers: list[tuple[str, str, int, str]] = []
    for city, data in raw["cities"].items():
        for name, kind, opens, closes in data["places"]:
            places.append((name, city, kind, opens, closes))
        for a, b, minutes in data["transfers"]:
            # Authored once per pair; the way back takes as long.
            transfers.extend([(a, b, minutes, city), (b, a, minutes, city)])
    first = datetime.strptime(raw["first_day"], "%Y-%m-%d")
    trains: list[tuple[str, str, str, str, str, int, float]] = []
    for day in range(int(raw["days_running"])):
        date = first + timedelta(days=day)
        for service, origin, destination, departs, minutes, price in raw["services"]:
            hour, minute = (int(part) for part in departs.split(":"))
            dep = date.replace(hour=hour, minute=minute)
            arr = dep + timedelta(minutes=minutes)
            trains.append(
                (
                    f"{service}-{date:%m%d}",
                    origin,
                    destination,
                    dep.strftime(TIME_FORMAT),
                    arr.strftime(TIME_FORMAT),
                    minutes,
                    float(price),
                )
            )
    return Tables(places=places, transfers=transfers, trains=trains)


def as_sample(brief: dict[str, Any]) -> dict[str, Any]:
    """A brief in the published sample shape (so one converter serves both)."""
    constraints: dict[str, Any] = {}
    if brief.get("cities"):
        constraints["CityDurationConstraint"] = [{"city": c, "days": d} for c, d in brief["cities"].items()]
    if brief.get("spots"):
        constraints["SpotDurationConstraint"] = [{"spot": s, "minutes": m} for s, m in brief["spots"].items()]
    return {
        "question": brief["question"],
        "demands": {"TravelSimulator": brief["settings"], "Constraints": constraints},
    }


def definitions(folder: Path = FOLDER) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(brief, definition) for every bundled brief; pure apart from reading the two files."""
    tables = read_world(folder / "world.json")
    briefs = json.loads((folder / "briefs.json").read_text(encoding="utf-8"))
    result = []
    for brief in briefs:
        definition = definition_from_sample(int(brief["kind"]), 0, as_sample(brief), tables)
        definition["source"] = {"dataset": "bundled", "sample": brief["name"], "settings": brief["settings"]}
        if definition["efficiency"]["source"] == "published":
            definition["efficiency"]["source"] = "authored"
        result.append((brief, definition))
    return result
