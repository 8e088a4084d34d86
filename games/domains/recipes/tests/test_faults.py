"""The three faults of the Recipe2Plan reference implementation, fixed (SPEC section 3)."""

from games.domains.recipes.rules import RULES
from games.domains.recipes.tests.kitchens import kitchen


def test_a_rejected_action_dated_in_the_future_does_not_move_the_clock():
    state = RULES.initial_state(kitchen())
    transition = RULES.act(state, 0, "Step(2, Bake, 00:01:00, 00:30:00)", 0)  # prerequisite missing
    assert transition.rejection is not None
    assert RULES.now(transition.state) == 0
    # ... so an action at an earlier time is still accepted afterwards
    assert RULES.act(transition.state, 0, "Step(1, Bake, 00:05:00, 00:01:00)", 0).rejection is None


def test_an_autonomous_step_is_not_complete_at_its_start():
    state = RULES.initial_state(kitchen())
    state = RULES.act(state, 0, "Step(0, Bake)", 0).state
    assert not state.is_complete(0, 0)
    state = RULES.act(state, 0, "Step(1, Bake)", 0).state
    state = RULES.advance(state, 300).state
    state = RULES.act(state, 0, "Step(2, Bake)", 300).state
    state = RULES.advance(state, 360).state
    transition = RULES.act(state, 0, "Step(3, Bake)", 360)  # needs the preheat, which ends at 600
    assert transition.rejection.kind == "prerequisite_running"
    assert RULES.result(state)["progress"] < 100 * 3 / 7 + 0.01  # preheat not counted as done


def test_rerunning_a_finished_step_for_zero_seconds_does_not_reset_its_time_constraint():
    state = RULES.initial_state(kitchen())
    state = RULES.act(state, 0, "Step(0, Soup)", 0).state
    state = RULES.advance(state, 240).state
    state = RULES.act(state, 0, "Step(1, Soup)", 240).state  # heat ends 540; stir by 600
    state = RULES.advance(state, 590).state
    for attempt in ("Step(1, Soup, 00:00:00, 00:09:50)", "Step(1, Soup, 00:05:00, 00:09:50)"):
        transition = RULES.act(state, 0, attempt, 590)
        assert transition.rejection.kind in {"already_done", "duration"}
        state = transition.state
    assert state.finished_at(1, 1) == 540
    transition = RULES.act(state, 0, "Step(2, Soup, 00:02:00, 00:10:30)", 590)
    assert transition.rejection.kind == "time_constraint"
