"""manage.py playtest: every bundled scenario is won by the planner at human pace."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.core.management import CommandError, call_command

from games.playtest import bundled_scenarios, playtest
from games.speeds import default_speed

DOMAINS = ("tasks", "recipes", "kitchen", "itinerary")


@pytest.fixture
def bundled(db):
    for domain in DOMAINS:
        import_module(f"games.importers.bundled_{domain}").load(log=lambda line: None)


def test_every_bundled_scenario_is_won_at_human_pace(bundled):
    for domain in DOMAINS:
        scenarios = bundled_scenarios(domain)
        assert scenarios, domain
        for scenario in scenarios:
            row = playtest(scenario)
            assert row.passed, (row.slug, row.verdict)
            assert row.speed == default_speed(domain)
            if domain in ("recipes", "kitchen"):
                # the default speeds keep these a few real minutes long, not an hour
                assert 1 <= row.minutes <= 6, (row.slug, row.minutes)


def test_at_a_pace_too_fast_for_people_the_trip_runs_out(bundled):
    morning = next(s for s in bundled_scenarios("itinerary") if s.slug == "bundled/harbourton-morning")
    row = playtest(morning, speed=600)  # ten trip hours pass while the player reads
    assert not row.passed and "end time" in row.verdict


def test_the_command_reports_each_scenario_and_fails_when_one_is_lost(bundled, capsys):
    call_command("playtest", "kitchen")
    out = capsys.readouterr().out
    assert "bundled/warm-up" in out and "4 of 4 bundled scenarios won" in out
    with pytest.raises(CommandError, match="not won"):
        call_command("playtest", "itinerary", "--speed", "600")
