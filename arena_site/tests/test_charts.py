"""The one chart module: its shared axis rule and what each chart draws."""

from __future__ import annotations

import re

import pytest

from arena_site import charts


def test_axes_round_up_to_one_two_two_and_a_half_or_five():
    assert [charts.nice_ceiling(v) for v in (0, 0.3, 1, 3, 7, 23, 2400)] == [1.0, 0.5, 1.0, 5.0, 10.0, 25.0, 2500.0]


def test_a_line_chart_ticks_whole_units_at_a_round_step():
    chart = charts.line_chart([{"label": "a", "points": [(0, 0), (3, 50)]}], x_label="decisions")
    assert [t["label"] for t in chart["x_ticks"]] == ["0", "1", "2", "3"]
    chart = charts.line_chart([{"label": "a", "points": [(0, 0), (230, 50)]}], x_label="game time")
    assert [t["label"] for t in chart["x_ticks"]] == ["0", "50", "100", "150", "200"]
    # recipes' game seconds labelled as minutes: 13,800 s is 230 minutes, ticked as above
    minutes = charts.line_chart([{"label": "a", "points": [(0, 0), (13_800, 50)]}], x_label="t", x_scale=60)
    assert [t["label"] for t in minutes["x_ticks"]] == ["0", "50", "100", "150", "200"]
    assert [t["at"] for t in minutes["x_ticks"]] == [t["at"] for t in chart["x_ticks"]]


def test_a_run_pages_time_axis_reads_its_domains_minutes_or_steps():
    from games.npc.reports import curve_charts

    report = {"label": "planner", "curves": [[[0.0, 0, 0.0], [6600.0, 20, 100.0]]]}
    recipes = curve_charts([report], domain="recipes")["time"]
    assert recipes["x_label"] == "game time (minutes)" and recipes["x_ticks"][-1]["label"] == "100"
    assert curve_charts([report], domain="kitchen")["time"]["x_label"] == "game time (steps)"


@pytest.mark.parametrize(
    ("longest", "unit", "last_tick"), [(270.0, "minutes", "200"), (900.0, "hours", "15"), (7200.0, "days", "5")]
)
def test_a_long_axis_of_minutes_reads_in_hours_or_days(longest, unit, last_tick):
    from games.npc.reports import curve_charts

    short = [[0.0, 0, 0.0], [100.0, 4, 50.0]]
    report = {"label": "people", "curves": [short, [[0.0, 0, 0.0], [longest, 9, 100.0]]]}
    chart = curve_charts([report], domain="itinerary")["time"]
    assert chart["x_label"] == f"game time ({unit})" and chart["x_ticks"][-1]["label"] == last_tick


def test_mean_bars_escape_labels_and_say_each_bar_in_words():
    svg = charts.mean_bars(
        [charts.MeanGroup("Trust <score>", [charts.MeanBar("A & B", 3.5, 0.25, 12)])], ["A & B"], title="T"
    )
    assert "<title>Trust &lt;score&gt;, A &amp; B: mean 3.50, SE 0.25, n = 12</title>" in svg
    assert "<score>" not in svg and "A & B" not in svg


def test_a_mean_at_the_axis_floor_still_shows_a_bar_and_its_value():
    # "1.00" on a 1-5 scale and 0 orders drew nothing, like a condition without data
    svg = charts.mean_bars(
        [charts.MeanGroup("Fun", [charts.MeanBar("Alone", 1.0, None, 1), charts.MeanBar("Team", 3.0, 0.5, 2)])],
        ["Alone", "Team", "Nobody"],
        title="T",
        y_min=1,
        y_max=5,
    )
    heights = [float(h) for h in re.findall(r'<rect x="[^"]+" y="[^"]+" width="[^"]+" height="([^"]+)"', svg)]
    assert len(heights) == 2 + 3  # two bars (no bar for the condition without data) and the legend
    assert heights[0] >= 2 and heights[1] > heights[0]
    assert re.findall(r'class="tick bar-value"[^>]*>([^<]+)<', svg) == ["1.00", "3.00"]


def test_row_bars_mark_undefined_values():
    chart = charts.row_bars([("kappa", [("amy-bob", None), ("amy-cy", 0.5)], 0.4)])
    assert [bar.text for bar in chart.groups[0].bars] == ["n/a (not defined)", "0.50"]
    assert chart.groups[0].ref_x is not None
