import pytest

from games.domains.tasks.rules import RULES
from games.domains.tasks.scoring import aggregate
from games.domains.tasks.tests.helpers import RICE
from games.engine.episode import first_legal, play


def test_aggregate_averages_progress_speed_completion_rate_and_time():
    finished = RULES.result(play(RULES, RICE, {0: first_legal}).state)
    state = RULES.initial_state(RICE)
    state = RULES.act(state, 0, "pick rice", 0).state
    state = RULES.advance(state, 40).state  # then nothing more: time runs out at 40
    partial = RULES.result(state)
    assert partial["progress"] == pytest.approx(100 * 2 / 11) and not partial["completed"]
    assert partial["progress_time"] == 2  # its highest progress was first reached when pick rice completed

    metrics = aggregate([finished, partial])
    assert metrics["episodes"] == 2
    assert metrics["AS"] == pytest.approx((100 + 100 * 2 / 11) / 2)
    assert metrics["CS"] == pytest.approx((100 / finished["completion_time"] + (100 * 2 / 11) / 2) / 2)
    assert metrics["CR"] == 50.0
    assert metrics["CT"] == finished["completion_time"]
    assert aggregate([partial])["CT"] is None
