"""The rules of SPEC section 3, one behaviour per test, on small hand-written kitchens."""

from __future__ import annotations

import json

import pytest

from games.domains.recipes.rules import RULES
from games.domains.recipes.tests.kitchens import BAKE, MUFFINS, ROAST, SOUP, kitchen
from games.engine.conformance import check_rules
from games.engine.episode import first_legal, play


def start(options=None, *recipes, agents=1):
    return RULES.initial_state(kitchen(*recipes), agents=agents, options=options)


def do(state, action, agent=0, now=None):
    transition = RULES.act(state, agent, action, RULES.now(state) if now is None else now)
    return transition.state, transition


def kind(transition):
    return transition.rejection.kind if transition.rejection else None


@pytest.mark.parametrize("constraints", [True, False])
@pytest.mark.parametrize("agents", [1, 2])
def test_conformance(constraints, agents):
    check_rules(RULES, kitchen(), agents=agents, options={"time_constraints": constraints})
    check_rules(RULES, kitchen(BAKE, MUFFINS, ROAST), agents=agents, options={"time_constraints": constraints})


def test_continuous_steps_occupy_the_cook_autonomous_ones_do_not():
    state = start()
    state, t = do(state, "Step(0, Bake, 00:10:00, 00:00:00)")  # autonomous preheat
    assert kind(t) is None
    state, t = do(state, "Step(1, Bake, 00:05:00, 00:00:00)")  # continuous mix alongside
    assert kind(t) is None
    _, t = do(state, "Step(0, Soup, 00:04:00, 00:01:00)")  # second continuous step while mixing
    assert kind(t) == "cook_busy"
    assert "until 00:05:00" in t.rejection.message
    assert "pause" in t.rejection.message  # mixing is interruptible: the message offers that
    state, t = do(state, "Step(0, Soup, 00:04:00, 00:05:00)")
    assert kind(t) is None


def test_two_agents_each_have_a_cook():
    state = start(None, agents=2)
    state, t = do(state, "Step(1, Bake)", agent=0)
    state, t = do(state, "Step(0, Soup)", agent=1)
    assert kind(t) is None
    assert RULES.awaiting(state) == frozenset()
    state = RULES.advance(state, 240).state
    assert RULES.awaiting(state) == frozenset({1})


def test_prerequisites_must_have_finished():
    state = start()
    _, t = do(state, "Step(2, Bake)")
    assert kind(t) == "prerequisite_missing"
    assert "step 1 of Bake first" in t.rejection.message
    state, _ = do(state, "Step(0, Soup)")
    state = RULES.advance(state, 240).state
    state, _ = do(state, "Step(1, Soup)")
    _, t = do(state, "Step(0, Bake, 00:10:00, 00:04:00)")
    assert kind(t) is None
    state, _ = do(state, "Step(1, Bake)")
    state = RULES.advance(state, 540).state
    state, _ = do(state, "Step(2, Bake)")
    state = RULES.advance(state, 600).state
    _, t = do(state, "Step(3, Bake)")
    assert kind(t) == "prerequisite_missing"  # the preheat never started


def test_prerequisite_running_says_when_it_finishes():
    state = start()
    state, _ = do(state, "Step(0, Soup)")
    state = RULES.advance(state, 240).state
    state, _ = do(state, "Step(1, Soup)")  # autonomous heat until 00:09:00
    _, t = do(state, "Step(2, Soup)")
    assert kind(t) == "prerequisite_running"
    assert "00:09:00" in t.rejection.message


def test_interruptible_steps_run_in_chunks():
    state = start()
    state, t = do(state, "Step(1, Bake, 00:02:00, 00:00:00)")
    assert kind(t) is None
    state = RULES.advance(state, 120).state
    assert state.status_of(0, 1) == "paused"
    state, t = do(state, "Step(1, Bake, 00:02:00, 00:03:00)")
    state = RULES.advance(state, 300).state
    state, t = do(state, "Step(1, Bake, 00:01:00, 00:05:00)")
    assert kind(t) is None
    state = RULES.advance(state, 360).state
    assert state.is_complete(0, 1)
    assert [(c.start, c.end) for c in state.step_chunks(0, 1)] == [(0, 120), (180, 300), (300, 360)]


def test_duration_and_not_interruptible_feedback():
    state = start()
    _, t = do(state, "Step(1, Bake, 00:06:00, 00:00:00)")
    assert kind(t) == "duration"
    assert "at most 00:05:00" in t.rejection.message
    _, t = do(state, "Step(0, Bake, 00:05:00, 00:00:00)")
    assert kind(t) == "not_interruptible"
    assert "00:10:00 in one go" in t.rejection.message


def test_unknown_recipe_and_step():
    state = start()
    _, t = do(state, "Step(0, Pizza)")
    assert kind(t) == "unknown_recipe"
    assert "Bake, Soup" in t.rejection.message
    _, t = do(state, "Step(9, Bake)")
    assert kind(t) == "unknown_step"
    assert "0 to 3" in t.rejection.message


def test_in_the_past():
    state = RULES.advance(start(), 100).state
    _, t = do(state, "Step(1, Bake, 00:05:00, 00:01:00)")
    assert kind(t) == "in_the_past"
    assert "at or after 00:01:40" in t.rejection.message


def test_already_done_and_already_running():
    state = start()
    state, _ = do(state, "Step(0, Bake)")
    _, t = do(state, "Step(0, Bake, 00:10:00, 00:01:00)")
    assert kind(t) == "already_running"
    state = RULES.advance(state, 600).state
    _, t = do(state, "Step(0, Bake)")
    assert kind(t) == "already_done"


def test_appliance_busy_and_shared_identical_preheat():
    state = start(None, BAKE, MUFFINS, ROAST)
    state, t = do(state, "Step(0, Bake, 00:10:00, 00:00:00)")
    state, t = do(state, "Step(0, Muffins, 00:10:00, 00:00:00)")  # same preheat, same time: shared
    assert kind(t) is None
    _, t = do(state, "Step(0, Roast, 00:10:00, 00:00:00)")
    assert kind(t) == "appliance_busy"
    assert "oven is in use" in t.rejection.message and "00:10:00" in t.rejection.message


def test_shared_preheat_must_be_the_identical_interval():
    state = start(None, BAKE, MUFFINS)
    state, _ = do(state, "Step(0, Bake, 00:10:00, 00:00:00)")
    _, t = do(state, "Step(0, Muffins, 00:10:00, 00:01:00)")
    assert kind(t) == "appliance_busy"


def test_appliance_state_names_the_step_that_sets_it():
    state = start(None, BAKE, MUFFINS, ROAST)
    state, _ = do(state, "Step(0, Roast)")  # oven to 425
    state = RULES.advance(state, 600).state
    state, _ = do(state, "Step(0, Muffins)")  # back to 350
    state = RULES.advance(state, 1200).state
    state, t = do(state, "Step(1, Muffins)")
    assert kind(t) is None
    state = RULES.advance(state, 2100).state
    _, t = do(state, "Step(1, Roast)")
    assert kind(t) == "appliance_state"
    assert "temperature is 350 but step 1 of Roast needs 425" in t.rejection.message
    assert "step 0 of Roast set it and is done, and no step left sets it again" in t.rejection.message


def test_appliance_advice_names_a_step_still_to_do_that_sets_it():
    state = start(None, BAKE, MUFFINS, ROAST)
    state, _ = do(state, "Step(0, Bake)")  # oven to 350
    state, _ = do(state, "Step(1, Bake)")
    state = RULES.advance(state, 300).state
    state, _ = do(state, "Step(2, Bake)")
    state = RULES.advance(state, 600).state
    state, _ = do(state, "Step(0, Roast)")  # oven to 425
    state = RULES.advance(state, 1200).state
    _, t = do(state, "Step(3, Bake)")
    assert kind(t) == "appliance_state"
    # Bake's own preheat is done; the muffins' preheat to 350 is still to do
    assert t.rejection.message.endswith("needs 350; first do step 0 of Muffins.")


def test_a_dead_end_fails_the_game_instead_of_leaving_nothing_to_do():
    # Roast preheats to 425, then Muffins preheat to 350 and bake: once the muffins are out, Roast's
    # step 1 needs 425 and nothing left can heat the oven; nothing runs, so nothing will change.
    state = start(None, MUFFINS, ROAST)
    state, _ = do(state, "Step(0, Roast)")
    state = RULES.advance(state, 600).state
    state, _ = do(state, "Step(0, Muffins)")
    state = RULES.advance(state, 1200).state
    state, t = do(state, "Step(1, Muffins)")
    assert kind(t) is None and not state.over  # the muffins bake: something is under way
    transition = RULES.advance(state, 2100)
    state = transition.state
    assert state.status == "failed" and RULES.outcome(state).terminated
    assert state.ended_at == 2100 and RULES.legal_actions(state, 0) == []
    assert state.reason.startswith("No step left can start at 00:35:00, and nothing is under way")
    assert "temperature is 350 but step 1 of Roast needs 425; step 0 of Roast set it and is done" in state.reason
    assert [e.kind for e in transition.events][-1] == "finished"
    assert RULES.result(state)["success"] is False


def test_no_dead_end_while_a_step_can_still_start():
    # the same kitchen played in the order that works: nothing is under way between the dishes,
    # but the muffins' preheat can still start, so the game goes on
    state = start(None, MUFFINS, ROAST)
    state, _ = do(state, "Step(0, Roast)")
    state = RULES.advance(state, 600).state
    state, _ = do(state, "Step(1, Roast)")
    state = RULES.advance(state, 1500).state
    assert not state.over and RULES.next_deadline(state) is None
    assert "Step(0, Muffins)" in RULES.legal_actions(state, 0)
    # the muffins' bake is blocked (the roast's preheat left the oven at 425), the roast's is not
    state = start(None, MUFFINS, ROAST)
    state, _ = do(state, "Step(0, Muffins)")
    state = RULES.advance(state, 600).state
    state, _ = do(state, "Step(0, Roast)")
    state = RULES.advance(state, 1200).state
    assert not state.over and RULES.legal_actions(state, 0) == ["Step(1, Roast)"]


def test_update_takes_effect_at_start():
    state = start(None, BAKE, MUFFINS)
    state, _ = do(state, "Step(0, Bake)")
    assert state.appliance_props("oven") == {"temperature": 350}


def test_time_constraint_is_fatal_and_keeps_the_clock():
    state = start()
    state, _ = do(state, "Step(0, Soup)")
    state = RULES.advance(state, 240).state
    state, _ = do(state, "Step(1, Soup)")  # heat ends 00:09:00; stir must start by 00:10:00
    state, t = do(state, "Step(2, Soup, 00:02:00, 00:10:01)")
    assert kind(t) == "time_constraint"
    assert RULES.outcome(state).terminated and state.status == "failed"
    assert "00:10:00" in t.rejection.message and "spoiled" in t.rejection.message
    assert RULES.now(state) == 240
    assert RULES.result(state)["success"] is False


def test_time_constraint_spoils_when_the_window_closes():
    state = start()
    state, _ = do(state, "Step(0, Soup)")
    state = RULES.advance(state, 240).state
    state, _ = do(state, "Step(1, Soup)")
    assert RULES.next_deadline(state) == 540
    state = RULES.advance(state, 540).state
    assert RULES.next_deadline(state) == 601  # the stir's window closes after 00:10:00
    transition = RULES.advance(state, 700)
    assert transition.state.status == "failed"
    assert [e.kind for e in transition.events][-2:] == ["spoiled", "finished"]
    assert transition.events[-1].time == 601


def test_time_constraint_met_at_the_last_second_and_off_when_switched_off():
    for options, start_at in [(None, "00:10:00"), ({"time_constraints": False}, "00:30:00")]:
        state = start(options)
        state, _ = do(state, "Step(0, Soup)")
        state = RULES.advance(state, 240).state
        state, _ = do(state, "Step(1, Soup)")
        state, t = do(state, f"Step(2, Soup, 00:02:00, {start_at})")
        assert kind(t) is None, t.rejection


def test_pause_an_interruptible_step():
    state = start()
    state, _ = do(state, "Step(1, Bake)")
    state = RULES.advance(state, 100).state
    assert "Pause(1, Bake)" in RULES.legal_actions(state, 0)
    state, t = do(state, "Pause(1, Bake)")
    assert t.events[-1].kind == "paused"
    assert state.remaining(0, 1) == 200 and state.busy_until(0) == 100
    state, t = do(state, "Step(0, Soup)")
    assert kind(t) is None
    _, t = do(state, "Pause(0, Bake)")
    assert kind(t) == "not_running"
    state = RULES.advance(state, 340).state
    state, t = do(state, "Step(0, Bake)")
    assert kind(t) is None
    _, t = do(state, "Pause(0, Bake)")
    assert kind(t) == "not_interruptible"


def test_success_when_everything_is_complete():
    state = start()
    plan = (
        "Step(0, Bake, 00:10:00, 00:00:00) Step(1, Bake, 00:05:00, 00:00:00) Step(2, Bake, 00:01:00, 00:05:00)"
        " Step(0, Soup, 00:04:00, 00:06:00) Step(1, Soup, 00:05:00, 00:10:00) Step(3, Bake, 00:20:00, 00:10:00)"
        " Step(2, Soup, 00:02:00, 00:15:00)"
    )
    state, t = do(state, plan)
    assert kind(t) is None
    state = RULES.advance(state, RULES.next_deadline(state)).state
    while RULES.next_deadline(state) is not None:
        state = RULES.advance(state, RULES.next_deadline(state)).state
    assert state.status == "success" and RULES.outcome(state).terminated
    result = RULES.result(state)
    assert result["success"] and result["progress"] == 100.0
    assert result["makespan_seconds"] == 1800
    # executed 600+300+60+240+300+1200+120 = 2820; T_save = 1020; T_auto = 600+300+1200 = 2100
    assert result["efficiency"] == round(100 * 1020 / 2100, 2)
    assert result["reference_makespan_seconds"] is None  # no reference plan to compare with


def test_the_result_gives_the_reference_plans_makespan():
    # the page showed R-efficiency -181 and never what the reference plan takes (46:30 against 1:06:11)
    definition = dict(kitchen(), reference_plans={"with_constraints": [[0, "Bake", 600, 0], [3, "Bake", 1200, 900]]})
    state = RULES.initial_state(definition, agents=1, options=None)
    assert RULES.result(state)["reference_makespan_seconds"] == 2100


def test_plan_stops_at_the_first_error():
    state = start()
    state, t = do(
        state, "Step(1, Bake, 00:05:00, 00:00:00) Step(2, Bake, 00:01:00, 00:04:00) Step(0, Soup, 00:04:00, 00:06:00)"
    )
    assert kind(t) == "prerequisite_running"
    assert len(state.chunks) == 1


def test_revision_limits_end_the_episode():
    state = start()
    for _ in range(3):
        state, t = do(state, "Step(9, Bake)")
    assert state.status == "truncated" and RULES.outcome(state).truncated
    state = start({"max_repeats": 0})
    for number in range(10):
        state, t = do(state, f"Step({10 + number}, Bake)")
    assert RULES.outcome(state).truncated and "10 rejected" in state.reason
    _, t = do(state, "Step(0, Bake)")
    assert kind(t) == "game_over"


def test_stop_ends_the_episode():
    state, _t = do(start(), "Stop()")
    assert RULES.outcome(state).terminated and state.status == "stopped"


def test_observation_lists_time_appliances_running_steps_and_hints():
    state = start({"hints": True}, BAKE, MUFFINS)
    state, _ = do(state, "Step(0, Bake)")
    state, _ = do(state, "Step(1, Bake)")
    observation = RULES.observe(state, 0)
    assert "The current time is 00:00:00" in observation.text
    assert "oven in use by step 0 of Bake until 00:10:00 (temperature 350)" in observation.text
    assert "step 0 of Bake (finishes at 00:10:00)" in observation.text
    assert "Steps that could start at 00:05:00: step 2 of Bake" in observation.text
    data = observation.data
    json.dumps(data)
    assert data["cooks"][0] == {"agent": 0, "busy_until": 300, "busy": True, "doing": {"recipe": "Bake", "step": 1}}
    oven = next(a for a in data["appliances"] if a["name"] == "oven")
    assert oven["state"] == {"temperature": 350} and oven["users"][0]["until"] == 600
    bake = data["recipes"][0]["steps"]
    assert bake[0]["status"] == "running" and bake[0]["running_until"] == 600
    assert bake[2]["can_start_at"] == 300
    assert {"at": 300, "clock": "00:05:00", "steps": [{"recipe": "Bake", "step": 2}]} in data["next"]
    assert "could start" not in RULES.observe(start(), 0).text  # hints are optional


def test_first_legal_play_with_two_cooks_succeeds_without_constraints():
    episode = play(
        RULES, kitchen(BAKE, SOUP, MUFFINS), {0: first_legal, 1: first_legal}, options={"time_constraints": False}
    )
    assert RULES.result(episode.state)["success"]


def test_messages_write_the_recipe_name_as_the_recipe_has_it():
    # A message starting "Step 1 of ..." capitalises its first letter only: str.capitalize would
    # write "Step 1 of bake", a recipe the player cannot find on the board.
    state, _ = do(start(), "Step(1, Bake)")
    passed = RULES.advance(state, RULES.next_deadline(state))
    assert "Step 1 of Bake is complete." in [event.message for event in passed.events]
    _, t = do(passed.state, "Step(1, Bake)")
    assert t.rejection.message.startswith("Step 1 of Bake is already complete")


def test_a_step_under_way_says_who_is_doing_it_and_what_is_left_after():
    state = start(None, agents=2)
    state, _ = do(state, "Step(0, Soup, 00:02:00)", agent=0)  # chopping (interruptible), 2 of its 4 minutes
    state, _ = do(state, "Step(0, Bake)", agent=1)  # the preheat runs by itself
    _, t = do(state, "Step(0, Soup)", agent=1)
    assert kind(t) == "already_running"
    assert t.rejection.message == (
        "Step 0 of Soup is under way: a teammate is doing it until 00:02:00; "
        "choose another step, or do the rest of it (00:02:00) after 00:02:00."
    )
    _, t = do(state, "Step(0, Soup)", agent=0)
    assert t.rejection.message.startswith("You are doing step 0 of Soup until 00:02:00;")
    _, t = do(state, "Step(0, Bake)", agent=0)
    assert t.rejection.message == (
        "Step 0 of Bake is running by itself until 00:10:00, and it is complete at 00:10:00; choose another step."
    )
