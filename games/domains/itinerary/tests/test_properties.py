"""Properties of the itinerary rules over random action sequences (hypothesis)."""

from __future__ import annotations

import itertools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.domains.itinerary.rules import RULES
from games.domains.itinerary.scoring import score
from games.domains.itinerary.tests.worlds import definition

BRIEF = definition(
    constraints={"city_days": [], "spot_minutes": [{"spot": "Tower", "minutes": 60}, {"spot": "Garden", "minutes": 30}]}
)

# Either a suggested (legal) action, or a random mutation of one (wrong minutes, wrong place).
choices = st.lists(st.tuples(st.integers(0, 50), st.sampled_from(["legal", "late", "garbage"])), max_size=12)


def play(picks):
    state = RULES.initial_state(BRIEF)
    for index, kind in picks:
        if state.over:
            break
        options = RULES.legal_actions(state, 0)
        action = options[index % len(options)]
        if kind == "late":
            action = (
                action.replace(":", ";", 1) if "go_to_city" in action else action.replace("2024-01-01", "2023-12-31")
            )
        elif kind == "garbage":
            action = action[: index % max(1, len(action))]
        yield state, action
        state = RULES.act(state, 0, action, state.clock).state
    yield state, None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices)
def test_timeline_is_contiguous_money_adds_up_and_scores_stay_in_bounds(picks):
    states = [state for state, _ in play(picks)]
    final = states[-1]
    clocks = [s.clock for s in states]
    assert clocks == sorted(clocks), "the clock never goes back"
    segments = final.segments
    assert all(a.end == b.start for a, b in itertools.pairwise(segments)), "no gaps or overlaps"
    assert all(s.end > s.start for s in segments)
    assert final.spent == sum(s.price for s in segments if s.kind == "train")
    result = score(final)
    assert 0 <= result["executability"] <= 60 and 0 <= result["constraints"] <= 20 and 0 <= result["efficiency"] <= 20
    if result["constraints"] > 0:
        assert result["executability"] == 60
    if result["efficiency"] > 0:
        assert result["constraints"] == 20
    assert len(result["failed_checks"]) == sum(not c["passed"] for c in result["checks"])
    raw = json.loads(json.dumps(RULES.dump_state(final)))
    assert RULES.dump_state(RULES.load_state(raw)) == RULES.dump_state(final)


@settings(max_examples=40, deadline=None)
@given(choices)
def test_a_rejected_action_never_moves_the_traveller(picks):
    for state, action in play(picks):
        if action is None:
            break
        transition = RULES.act(state, 0, action, state.clock)
        if transition.rejection is not None:
            after = transition.state
            assert (after.clock, after.city, after.place, after.spent, after.segments) == (
                state.clock,
                state.city,
                state.place,
                state.spent,
                state.segments,
            )
