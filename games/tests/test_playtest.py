"""manage.py playtest: every bundled scenario is won by the planner at human pace."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.core.management import CommandError, call_command

from games.engine import registry
from games.playtest import bundled_scenarios, playtest
from games.speeds import default_speed, readable

DOMAINS = ("tasks", "recipes", "kitchen", "itinerary")


@pytest.fixture
def bundled(db):
    for domain in DOMAINS:
        import_module(f"games.importers.bundled_{domain}").load(log=lambda line: None)


def test_every_bundled_scenario_is_won_at_human_pace_in_two_to_six_minutes(bundled):
    for domain in DOMAINS:
        scenarios = bundled_scenarios(domain)
        assert scenarios, domain
        for scenario in scenarios:
            row = playtest(scenario)
            assert row.passed, (row.slug, row.verdict)
            options = registry.descriptor(domain).extra.get("game_options", {})
            assert row.speed == default_speed(domain, scenario.definition, options)
            # simulated real time: the game's length in its own units over the pace (never slept)
            if domain == "itinerary":  # the trip's clock jumps: its length is the player's reading
                assert row.in_window is None
            else:
                assert row.in_window, (row.slug, row.minutes, row.pace)
                assert 2 <= row.minutes <= 6


def test_a_scenario_sets_its_own_pace_from_its_length(bundled):
    by_slug = {s.slug: s for s in bundled_scenarios("tasks")}
    short, long = by_slug["bundled/make-breakfast"], by_slug["bundled/bake-bread"]
    # a 9-minute breakfast plays slower than a 29-minute loaf, so both last a few real minutes
    assert default_speed("tasks", short.definition) < default_speed("tasks", long.definition)
    assert default_speed("tasks", long.definition) == pytest.approx(1 / 5)  # a game minute every 5 s
    assert default_speed("kitchen") == default_speed("kitchen", {"anything": 1}) == 0.5


def test_paces_are_rounded_to_ones_people_read():
    assert readable(1 / 11) == pytest.approx(1 / 12)
    assert readable(1 / 4.4) == pytest.approx(1 / 4)
    assert readable(17) == 15 and readable(45.7) == 50 and readable(130) == 130
    with pytest.raises(ValueError):
        readable(0)


def test_a_default_pace_outside_the_window_fails_the_command(bundled, monkeypatch, capsys):
    monkeypatch.setattr("games.playtest.WINDOW_MINUTES", (2.0, 2.1))
    monkeypatch.setattr("games.management.commands.playtest.WINDOW_MINUTES", (2.0, 2.1))
    with pytest.raises(CommandError, match=r"last less than 2 or more than 2\.1 minutes"):
        call_command("playtest", "recipes")
    assert "outside 2-2.1 min" in capsys.readouterr().out


def test_at_a_pace_too_fast_for_people_the_trip_runs_out(bundled):
    morning = next(s for s in bundled_scenarios("itinerary") if s.slug == "bundled/harbourton-morning")
    row = playtest(morning, speed=600)  # ten trip hours pass while the player reads
    assert not row.passed and "end time" in row.verdict


def test_the_command_reports_each_scenario_and_fails_when_one_is_lost(bundled, capsys):
    call_command("playtest", "kitchen")
    out = capsys.readouterr().out
    assert "bundled/warm-up" in out and "4 of 4 bundled scenarios won" in out
    assert out.count("(in window)") == 4 and "1 step every 2 s" in out
    with pytest.raises(CommandError, match="not won"):
        call_command("playtest", "itinerary", "--speed", "600")
