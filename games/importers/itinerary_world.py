"""Storing a travel world (cities, places, transfers, trains) and its briefs in the catalogue.

Shared by the ItineraryBench importer and our bundled world. Idempotent: rows are compared with
what is stored and only new or changed rows are written (in bulk: 3903 trains in a few queries).
Timetable times are wall-clock times without a zone; they are stored as UTC so they read back
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from games.catalog.itinerary.models import Brief, City, Place, Train, Transfer
from games.domains.itinerary.samples import Tables
from games.domains.itinerary.world import parse_clock
from games.importers import ImportSummary
from games.scenarios import save_scenario


def _aware(text: str) -> datetime:
    return parse_clock(text).replace(tzinfo=UTC)


def save_world(source: str, tables: Tables, summary: ImportSummary) -> None:
    cities = {c.name: c for c in City.objects.filter(source=source)}
    names = sorted(
        {row[1] for row in tables.places} | {row[1] for row in tables.trains} | {row[2] for row in tables.trains}
    )
    new_cities = [City(source=source, name=name) for name in names if name not in cities]
    City.objects.bulk_create(new_cities)
    summary.created += len(new_cities)
    cities = {c.name: c for c in City.objects.filter(source=source)}

    places = {(p.city_id, p.name): p for p in Place.objects.filter(city__source=source)}
    create, update = [], []
    for name, city, kind, opens, closes in tables.places:
        key = (cities[city].pk, name)
        stored = places.get(key)
        if stored is None:
            create.append(Place(city=cities[city], name=name, kind=kind, opens=opens, closes=closes))
        elif (stored.kind, stored.opens, stored.closes) != (kind, opens, closes):
            stored.kind, stored.opens, stored.closes = kind, opens, closes
            update.append(stored)
    Place.objects.bulk_create(create)
    Place.objects.bulk_update(update, ["kind", "opens", "closes"])
    summary.created += len(create)
    summary.updated += len(update)
    by_name = {p.name: p for p in Place.objects.filter(city__source=source)}

    transfers = {(t.origin_id, t.destination_id): t for t in Transfer.objects.filter(origin__city__source=source)}
    t_create, t_update = [], []
    for origin, destination, minutes, _city in tables.transfers:
        if origin not in by_name or destination not in by_name:
            continue
        stored_t = transfers.get((by_name[origin].pk, by_name[destination].pk))
        if stored_t is None:
            t_create.append(Transfer(origin=by_name[origin], destination=by_name[destination], minutes=minutes))
        elif stored_t.minutes != minutes:
            stored_t.minutes = minutes
            t_update.append(stored_t)
    Transfer.objects.bulk_create(t_create)
    Transfer.objects.bulk_update(t_update, ["minutes"])
    summary.created += len(t_create)
    summary.updated += len(t_update)

    trains = {t.number: t for t in Train.objects.filter(source=source)}
    r_create, r_update = [], []
    for number, origin, destination, dep, arr, minutes, price in tables.trains:
        values: dict[str, Any] = {
            "origin": cities[origin],
            "destination": cities[destination],
            "departure": _aware(dep),
            "arrival": _aware(arr),
            "minutes": int(minutes),
            "price": Decimal(str(price)).quantize(Decimal("0.01")),
        }
        stored_r = trains.get(number)
        if stored_r is None:
            r_create.append(Train(source=source, number=number, **values))
            continue
        current = (
            stored_r.origin_id,
            stored_r.destination_id,
            stored_r.departure,
            stored_r.arrival,
            stored_r.minutes,
            stored_r.price,
        )
        wanted = (
            values["origin"].pk,
            values["destination"].pk,
            values["departure"],
            values["arrival"],
            values["minutes"],
            values["price"],
        )
        if current != wanted:
            for field, value in values.items():
                setattr(stored_r, field, value)
            r_update.append(stored_r)
    Train.objects.bulk_create(r_create, batch_size=1000)
    Train.objects.bulk_update(r_update, ["origin", "destination", "departure", "arrival", "minutes", "price"])
    summary.created += len(r_create)
    summary.updated += len(r_update)


def save_brief(
    *,
    source: str,
    slug: str,
    title: str,
    definition: dict[str, Any],
    sample_index: int | None,
    settings: Mapping[str, Any],
    summary: ImportSummary,
    log: Callable[[str], None],
) -> bool:
    """Store the brief's catalogue row and its Scenario; True when anything changed."""
    _, changed = save_scenario(
        domain="itinerary",
        slug=slug,
        title=title,
        source=source,
        definition=definition,
        description=definition["brief"][:2000],
    )
    values = {
        "source": source,
        "kind": definition["kind"],
        "sample_index": sample_index,
        "question": definition["brief"],
        "objective": definition["objective"],
        "settings": dict(settings),
    }
    brief, created = Brief.objects.get_or_create(slug=slug, defaults=values)
    if not created and any(getattr(brief, k) != v for k, v in values.items()):
        for key, value in values.items():
            setattr(brief, key, value)
        brief.save()
        changed = True
    changed = changed or created
    if changed:
        summary.created += int(created)
        summary.updated += int(not created)
    else:
        summary.unchanged += 1
    return changed
