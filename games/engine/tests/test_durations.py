"""The one duration formatter: each style, and that the Recipe2Plan texts read back."""

from __future__ import annotations

import pytest

from games.domains.recipes.timefmt import parse_amount, parse_clock
from games.engine.durations import amount_text, describe_amount, format_clock, short_clock


@pytest.mark.parametrize("seconds", [0, 59, 61, 3599, 3723, 90061])
def test_the_wire_clock_reads_back(seconds):
    assert parse_clock(format_clock(seconds)) == seconds


def test_the_short_clock_shows_hours_only_from_an_hour():
    assert [short_clock(s) for s in (0, 75, 3599, 3600, 3723, -5)] == [
        "0:00",
        "1:15",
        "59:59",
        "1:00:00",
        "1:02:03",
        "0:00",
    ]


@pytest.mark.parametrize("seconds", [30, 60, 90, 600, 3600, 5400, 7200])
def test_amount_texts_read_back(seconds):
    assert parse_amount(amount_text(seconds)) == seconds


def test_amount_text_takes_the_largest_whole_unit():
    assert [amount_text(s) for s in (45, 600, 5400, 7200)] == ["45 sec", "10 min", "90 min", "2 hour"]


def test_described_amounts_name_every_part():
    assert [describe_amount(s) for s in (0, 45, 630, 3600, 5430)] == [
        "0 s",
        "45 s",
        "10 min 30 s",
        "1 h",
        "1 h 30 min 30 s",
    ]
