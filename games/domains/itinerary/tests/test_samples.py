"""Published samples -> definitions: names, objectives, budgets and efficiency ranges."""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest

from games.domains.itinerary.samples import Tables, definition_from_sample, parse_sample_name, rest_lower_bound
from games.domains.itinerary.scoring import efficiency_points

TABLES = Tables(
    places=[
        ("Alpha Railway Hotel", "Alpha", "hotel", 0, 24),
        ("Tower", "Alpha", "spot", 9, 18),
        ("Beta Railway Hotel", "Beta", "hotel", 0, 24),
        ("Garden", "Beta", "spot", 8, 20),
    ],
    transfers=[("Alpha Railway Hotel", "Tower", 20, "Alpha"), ("Tower", "Alpha Railway Hotel", 20, "Alpha")],
    trains=[
        ("T1", "Alpha", "Beta", "2024-01-01 10:00:00", "2024-01-01 11:00:00", 60, 40.0),
        ("T2", "Beta", "Alpha", "2024-01-01 16:00:00", "2024-01-01 17:00:00", 60, 30.0),
        ("T9", "Alpha", "Beta", "2024-02-01 10:00:00", "2024-02-01 11:00:00", 60, 40.0),
    ],
)


def sample(question, **settings):
    base = {"begin_time": "2024-01-01 07:00", "end_time": "2024-01-02 00:00", "origin_city": "Alpha", "budget": 99999}
    base.update(settings)
    return {
        "question": question,
        "demands": {
            "TravelSimulator": base,
            "Constraints": {"SpotDurationConstraint": [{"spot": "Garden", "minutes": 60}]},
        },
    }


def test_sample_names():
    assert parse_sample_name("type2:5") == (2, 5)
    with pytest.raises(ValueError, match="typeN:INDEX"):
        parse_sample_name("2:5")


def test_type3_objective_follows_the_question_and_budget_comes_from_it():
    raw = sample(
        "The budget for transportation is 150.0 CNY. spend as little time as possible.",
        set_budget=True,
        limit="money",
        money_min=10,
        money_max=99,
    )
    definition = definition_from_sample(3, 0, raw, TABLES)
    assert definition["objective"] == "time" and definition["budget"] == 150.0
    assert definition["efficiency"]["source"] == "derived" and definition["efficiency"]["quantity"] == "time"
    # Only the trains inside the window, between the brief's cities.
    assert [t[0] for t in definition["world"]["trains"]] == ["T1", "T2"]
    assert definition["rest_hours"] and not definition["return_to_origin"]


def test_type2_without_limit_plays_time_with_the_published_range_in_minutes():
    raw = sample("spend as little time as possible", time_min=6000, time_max=12000)
    definition = definition_from_sample(2, 3, raw, TABLES)
    assert definition["objective"] == "time" and definition["budget"] is None
    assert definition["efficiency"]["min"] == 100 and definition["efficiency"]["max"] == 200


def test_published_day_ranges_below_the_rest_bound_are_lifted():
    # 07:00 begin: 900 minutes of going out fit on day one, the rest waits for 07:00 next day.
    begin = datetime(2024, 1, 1, 7, 0)
    assert rest_lower_bound(begin, 900) == 900
    assert rest_lower_bound(begin, 960) == 1440 + 60
    assert rest_lower_bound(begin, 400, meals=True) == 300 + 60 + 100
    raw = sample("spend as little time as possible", time_min=600, time_max=6000)
    raw["demands"]["Constraints"]["SpotDurationConstraint"] = [{"spot": "Tower", "minutes": 1000}]
    efficiency = definition_from_sample(2, 0, raw, TABLES)["efficiency"]
    assert efficiency["min"] == rest_lower_bound(begin, 1020) and efficiency["max"] - efficiency["min"] == 90
    assert efficiency["published"] == {"min": 10, "max": 100}


def test_efficiency_is_monotone_and_clamped():
    values = [efficiency_points(v, 100, 200) for v in range(50, 260, 10)]
    assert values[0] == 20 and values[-1] == 0
    assert all(a >= b for a, b in itertools.pairwise(values))
    assert efficiency_points(150, 100, 200) == 10
