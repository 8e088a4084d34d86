"""A tiny hand-made travel world for the rule tests (two towns, a few places, four trains)."""

from __future__ import annotations

from typing import Any


def definition(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "itinerary-v1",
        "kind": "combined",
        "brief": "Test brief: see the Tower in Alpha for 60 minutes and the Garden in Beta for 30 minutes.",
        "begin": "2024-01-01 07:00",
        "end": "2024-01-03 00:00",
        "origin_city": "Alpha",
        "origin_place": "Alpha Railway Hotel",
        "budget": 100.0,
        "objective": "time",
        "check_opening_hours": True,
        "check_meals": True,
        "rest_hours": True,
        "one_day": False,
        "return_to_origin": False,
        "constraints": {"city_days": [], "spot_minutes": [{"spot": "Tower", "minutes": 60}]},
        "efficiency": {"quantity": "time", "min": 100, "max": 600, "unit": "minute", "source": "test"},
        "world": {
            "places": [
                {"name": "Alpha Railway Hotel", "city": "Alpha", "kind": "hotel", "opens": 0, "closes": 24},
                {"name": "Tower", "city": "Alpha", "kind": "spot", "opens": 9, "closes": 18},
                {"name": "Beta Railway Hotel", "city": "Beta", "kind": "hotel", "opens": 0, "closes": 24},
                {"name": "Garden", "city": "Beta", "kind": "spot", "opens": 8, "closes": 20},
            ],
            "transfers": [
                ["Alpha Railway Hotel", "Tower", 20],
                ["Tower", "Alpha Railway Hotel", 20],
                ["Beta Railway Hotel", "Garden", 10],
                ["Garden", "Beta Railway Hotel", 10],
            ],
            "trains": [
                ["T1", "Alpha", "Beta", "2024-01-01 10:00", "2024-01-01 11:00", 40.0],
                ["T2", "Beta", "Alpha", "2024-01-01 16:00", "2024-01-01 17:00", 40.0],
                ["T3", "Alpha", "Beta", "2024-01-02 08:00", "2024-01-02 09:30", 90.0],
                ["T4", "Beta", "Alpha", "2024-01-02 20:00", "2024-01-02 21:00", 30.0],
            ],
        },
        "source": {"dataset": "test"},
    }
    base.update(overrides)
    return base
