"""The benchmark page's tables in the papers' layout: each figure is rounded once, as shown."""

from __future__ import annotations

from games.npc.tables import kitchen_table


def row(alpha: float, rate: float) -> dict:
    return {"item": {"group": {"level": "level_1", "agents": 2, "alpha": alpha}}, "metrics": {"success_rate": rate}}


def test_the_kitchen_table_rounds_each_success_rate_once():
    """5 of 7 orders (0.7142857) read 71.00: the mean was rounded to 0.71 before it became a percent."""
    table = kitchen_table([row(2, 5 / 7), row(1, 1.0), row(1, 0.5)])
    assert table["columns"] == ["α=1", "α=2", "CoS"]
    (only,) = table["rows"]
    assert only["label"] == "level_1 · 2 agents" and only["episodes"] == 3
    assert only["values"] == [75.0, 71.43, round((75.0 + 500 / 7) / 2, 2)]
