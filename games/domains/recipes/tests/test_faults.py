"""The three faults of the Recipe2Plan reference implementation, fixed (SPEC section 3)."""

import pytest

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


def test_steps_in_a_circle_are_named_and_a_long_chain_loads_without_recursion():
    # the check walked prerequisites recursively: a chain of a few thousand steps overflowed the stack
    from games.domains.recipes.kitchen import DefinitionError, load_kitchen

    def recipe(n, first_needs):
        steps = [{"index": i, "duration": 60, "prerequisites": [i - 1] if i else first_needs} for i in range(n)]
        return {"recipes": [{"name": "Chain", "steps": steps}]}

    # each step waits for the next: walked from step 0, the whole chain is one path
    backwards = [{"index": i, "duration": 60, "prerequisites": [i + 1] if i < 2999 else []} for i in range(3000)]
    assert len(load_kitchen({"recipes": [{"name": "Chain", "steps": backwards}]}).recipes[0].steps) == 3000
    assert len(load_kitchen(recipe(3000, [])).recipes[0].steps) == 3000
    with pytest.raises(DefinitionError, match=r"Chain: steps \[0, 2, 1, 0\] depend on each other in a circle"):
        load_kitchen(recipe(3, [2]))
