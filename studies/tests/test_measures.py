"""Reading each domain's objective score from its result, and scoring Likert answers (pure)."""

from __future__ import annotations

import pytest

from games.engine.registry import UnknownDomain
from studies.measures import ItemAnswer, construct_scores, item_score, objective_measures


def read(domain: str, metrics: dict) -> dict:
    return {m.key: m.read(metrics) for m in objective_measures(domain)}


def test_kitchen_cos_is_the_games_success_rate():
    metrics = {"level": "warm-up", "alpha": 2.0, "completed": 3, "failed": 1, "success_rate": 0.75}
    assert read("kitchen", metrics) == {"cos": 0.75, "orders": 3.0}


def test_tasks_cr_and_ct_count_completed_episodes_only():
    done = {"progress": 100.0, "completed": True, "completion_time": 23}
    half = {"progress": 50.0, "completed": False, "completion_time": None}
    assert read("tasks", done) == {"cr": 100.0, "ct": 23.0, "progress": 100.0}
    assert read("tasks", half) == {"cr": 0.0, "ct": None, "progress": 50.0}


def test_recipes_success_and_s_times_e():
    assert read("recipes", {"success": True, "se": 82.5, "progress": 100.0}) == {"success": 100.0, "sxe": 82.5}
    assert read("recipes", {"success": False, "se": 0.0}) == {"success": 0.0, "sxe": 0.0}


def test_itinerary_score_is_the_total():
    assert read("itinerary", {"executability": 60.0, "constraints": 20.0, "efficiency": 7.5, "total": 87.5}) == {
        "score": 87.5
    }


def test_missing_metrics_are_missing_not_zero():
    assert read("kitchen", {}) == {"cos": None, "orders": None}
    with pytest.raises(UnknownDomain, match="unknown domain 'unknown'; known: tasks"):
        objective_measures("unknown")


def test_reverse_scored_items_count_six_minus_the_answer():
    assert item_score(2, reverse_scored=True) == 4
    assert item_score(2, reverse_scored=False) == 2
    with pytest.raises(ValueError, match="1 to 5"):
        item_score(6, reverse_scored=False)


def test_construct_scores_average_items():
    answers = [ItemAnswer("enjoyment", 5), ItemAnswer("enjoyment", 2, reverse_scored=True), ItemAnswer("trust", 3)]
    assert construct_scores(answers) == {"enjoyment": 4.5, "trust": 3.0}
