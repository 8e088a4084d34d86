"""Reading the published ItineraryBench files (travel.db and data_type1/2/3.json) without Django.

Used by the importer and by ``manage.py score|plan itinerary --data DIR``, which read the files
directly. travel.db is opened read-only (``mode=ro``), never written.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.domains.itinerary.samples import Tables
from games.importers import ImportProblem

SAMPLE_FILES = {1: "data_type1.json", 2: "data_type2.json", 3: "data_type3.json"}


@dataclass(frozen=True)
class Published:
    tables: Tables
    samples: dict[int, list[dict[str, Any]]]


def read_tables(database: Path) -> Tables:
    if not database.is_file():
        raise ImportProblem(f"{database} is missing; the folder must hold travel.db")
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise ImportProblem(f"{database}: cannot open ({error})") from None
    try:
        places = connection.execute(
            "SELECT name, city, type, opening_hours_begin, opening_hours_end FROM place ORDER BY city, name"
        ).fetchall()
        transfers = connection.execute(
            "SELECT origin, destination, duration, city FROM in_city_transport ORDER BY city, origin, destination"
        ).fetchall()
        trains = connection.execute(
            "SELECT number, origin, destination, departure_time, arrival_time, duration, price FROM railway "
            "ORDER BY number"
        ).fetchall()
    except sqlite3.Error as error:
        raise ImportProblem(f"{database}: not the ItineraryBench schema ({error})") from None
    finally:
        connection.close()
    for row in places:
        if row[2] not in ("hotel", "spot"):
            raise ImportProblem(f"{database}: place {row[0]!r} has type {row[2]!r}; expected hotel or spot")
    return Tables(places=places, transfers=transfers, trains=trains)


def read_samples(folder: Path) -> dict[int, list[dict[str, Any]]]:
    samples: dict[int, list[dict[str, Any]]] = {}
    for kind, name in SAMPLE_FILES.items():
        path = folder / name
        if not path.is_file():
            raise ImportProblem(f"{path} is missing; the folder must hold {', '.join(SAMPLE_FILES.values())}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ImportProblem(f"{path}: not JSON (line {error.lineno}: {error.msg})") from None
        if not isinstance(data, list):
            raise ImportProblem(f"{path}: expected a list of samples")
        for index, sample in enumerate(data):
            if "question" not in sample or "TravelSimulator" not in (sample.get("demands") or {}):
                raise ImportProblem(f"{path}: sample {index} lacks 'question' or 'demands.TravelSimulator'")
        samples[kind] = data
    return samples


def read_published(folder: Path) -> Published:
    folder = Path(folder)
    if folder.is_file():
        folder = folder.parent
    return Published(tables=read_tables(folder / "travel.db"), samples=read_samples(folder))
