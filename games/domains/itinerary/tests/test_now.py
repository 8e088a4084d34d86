"""Itinerary actions that mean "now", the offered menu keeping the hours, and the end verdict."""

from __future__ import annotations

from games.domains.itinerary.rules import GOALS_MET, GOALS_REACHED, RULES
from games.domains.itinerary.scoring import score
from games.domains.itinerary.tests.worlds import definition


def act(state, action, late=0):
    """Send ``action`` ``late`` minutes after the state's time, as a player thinking would."""
    transition = RULES.act(state, 0, action, RULES.now(state) + late)
    return transition.state, transition


def test_a_first_morning_offered_step_by_step_keeps_the_opening_hours():
    state = RULES.initial_state(definition())  # 07:00 at the Alpha hotel; the Tower opens at 9
    menu = RULES.legal_actions(state, 0)
    assert "go to Tower" in menu and "take train T1 to Beta" in menu
    assert not [a for a in menu if "(" in a]  # only the forms that mean "now"
    state, transition = act(state, "go to Tower", late=2)
    assert transition.rejection is None and state.place == "Tower" and state.clock == 2 + 20
    menu = RULES.legal_actions(state, 0)
    assert not [a for a in menu if a.startswith("visit")]  # closed until 09:00
    assert "wait until 09:00" in menu
    state, transition = act(state, "wait until 09:00", late=1)
    assert transition.rejection is None and state.clock == 120
    offered = next(a for a in RULES.legal_actions(state, 0) if a.startswith("visit"))
    assert offered == "visit Tower for 60 minutes"
    state, transition = act(state, offered, late=2)
    assert transition.rejection is None
    assert not [c for c in state.checks if not c.passed]
    assert state.over == GOALS_MET and RULES.outcome(state).terminated


def test_an_offered_visit_stops_before_lunch_and_closing():
    state = RULES.initial_state(definition())
    eleven, _ = act(act(state, "go to Tower")[0], "wait until 11:00")
    # 60 minutes wanted, 60 before lunch: "for 60 minutes" would run into lunch a minute later
    assert "visit Tower until 12:00" in RULES.legal_actions(eleven, 0)
    ten, _ = act(act(state, "go to Tower")[0], "wait until 10:00")
    assert "visit Tower for 60 minutes" in RULES.legal_actions(ten, 0)  # an hour to spare
    for action in ("go to Tower", "wait until 11:30"):
        state, _ = act(state, action)
    # the brief wants 60 minutes, lunch leaves 30: offered until lunch, which fits as the clock runs on
    assert "visit Tower until 12:00" in RULES.legal_actions(state, 0)
    state, _ = act(state, "wait until 12:10")
    assert not [a for a in RULES.legal_actions(state, 0) if a.startswith(("visit", "go to"))]
    assert "wait until 13:00" in RULES.legal_actions(state, 0)


def test_every_offered_action_is_accepted_two_minutes_later():
    for goals in ([], [{"spot": "Tower", "minutes": 600}]):  # with a visit cut short by lunch or closing
        _every_offered_action_is_accepted_two_minutes_later({"city_days": [], "spot_minutes": goals})


def _every_offered_action_is_accepted_two_minutes_later(constraints):
    state = RULES.initial_state(definition(constraints=constraints))
    offered = set()
    for _ in range(12):
        if state.over:
            break
        for action in RULES.legal_actions(state, 0):
            later, transition = act(state, action, late=2)
            if transition.rejection is not None:
                # only the world changing refuses one: a train that left meanwhile, at no cost
                assert action.startswith("take train") and transition.rejection.kind == "not_now", action
                continue
            assert not [c for c in later.checks if not c.passed], action
            offered.add(action)
        state, _ = act(state, RULES.legal_actions(state, 0)[0])
    if constraints["spot_minutes"]:
        assert [a for a in offered if a.startswith("visit Tower until")]


def test_take_train_fills_in_the_timetable_and_a_late_press_costs_nothing():
    state = RULES.initial_state(definition())
    state, transition = act(state, "take train T1 to Beta")
    assert transition.rejection is None and state.city == "Beta" and state.clock == 4 * 60
    late = RULES.initial_state(definition())
    late, _ = act(late, "wait until 10:30")
    after, transition = act(late, "take train T1 to Beta")
    assert transition.rejection is not None and transition.rejection.kind == "not_now"
    assert "left at 2024-01-01 10:00" in transition.rejection.message
    assert after.checks == late.checks  # nothing counted against the score


def test_phrases_that_do_not_fit_say_what_does():
    state = RULES.initial_state(definition())
    for text, words in (
        ("go to Garden", "from here you can go to Tower"),
        ("visit Tower for 30 minutes", "go to Tower first"),
        ("take train T2", "leaves from Beta"),
        ("take train T1 to Alpha", "goes to Beta"),
        ("wait until 06:30", "already"),
        ("wait until 25:00", "not a time of day"),
    ):
        _, transition = act(state, text)
        assert transition.rejection is not None and words in transition.rejection.message, text
    _, transition = act(state, "fly to the moon")
    assert transition.rejection.kind == "syntax" and "take train" in transition.rejection.message


def test_the_timed_forms_stay_accepted():
    state = RULES.initial_state(definition())
    state, transition = act(state, "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)")
    assert transition.rejection is None and state.place == "Tower"


def test_goals_reached_with_a_broken_rule_is_not_called_every_goal_met():
    state = RULES.initial_state(definition())
    state, _ = act(state, "go to Tower")
    state, _ = act(state, "visit Tower for 60 minutes")  # 07:20, before it opens
    assert RULES.outcome(state).over
    assert state.over != GOALS_MET and state.over.startswith(GOALS_REACHED)
    assert "opening hours" in state.over
    assert score(state)["constraints"] < 20


def test_an_always_open_sight_offers_no_wait_for_its_midnight_opening():
    world = definition()["world"]
    places = [*world["places"], {"name": "Walls", "city": "Alpha", "kind": "spot", "opens": 0, "closes": 24}]
    wanted = [{"spot": "Tower", "minutes": 60}, {"spot": "Walls", "minutes": 30}]
    constraints = {"city_days": [], "spot_minutes": wanted}
    state = RULES.initial_state(definition(world={**world, "places": places}, constraints=constraints))
    waits = [a for a in RULES.legal_actions(state, 0) if a.startswith("wait until")]
    # the Tower's opening and an hour from now; not "2024-01-02 00:00" (Walls' opening tomorrow,
    # a wait that would throw the day away for a sight open all the time)
    assert waits == ["wait until 08:00", "wait until 09:00"], waits


def test_the_last_minute_to_walk_somewhere_is_where_the_menu_stops_offering_it():
    """``transfer_until`` (what a real-time page hides a "go to" button by) against the menu's own
    test, minute by minute: the walk is offered at every minute up to it and not the minute after,
    when going would break the rest hours or a meal (a check the score counts)."""
    from games.domains.itinerary.now import transfer_allowed, transfer_until

    for overrides in ({}, {"check_meals": False}, {"rest_hours": False}, {"rest_hours": False, "check_meals": False}):
        start = RULES.initial_state(definition(**overrides))  # 07:00 at the Alpha hotel, the Tower 20 min away
        world = start.world
        for late in range(0, 2 * 24 * 60, 37):
            last = transfer_until(world, late, 20)
            if last is None:
                assert not transfer_allowed(world, late, 20)
                continue
            assert all(transfer_allowed(world, minute, 20) for minute in range(late, last + 1)), (overrides, late)
            assert not transfer_allowed(world, last + 1, 20), (overrides, late, last)
            if last + 1 < world.end - 20:  # not the trip's end: the walk there still happens, failing a check
                said = " ".join(e.message for e in act(start, "go to Tower", late=last + 1)[1].events)
                assert "overlaps" in said or "rest_hours" in said, said


def test_the_menu_changes_by_itself_at_the_first_wait_it_offers_and_at_the_trips_end():
    from games.domains.itinerary.now import next_change, wait_moments

    state = RULES.initial_state(definition(end="2024-01-01 23:00"))
    state, _ = act(state, "go to Tower")  # 07:20, the Tower opens at 09:00
    assert next_change(state) == min(wait_moments(state)) == 80  # an hour on comes first
    assert not [a for a in RULES.legal_actions(state, 0) if a.startswith("visit")]
    state = RULES.advance(state, 120).state  # what the real-time loop does when 09:00 comes
    assert "visit Tower for 60 minutes" in RULES.legal_actions(state, 0)
    late = RULES.advance(state, 16 * 60 - 10).state  # ten minutes before the trip's end
    assert next_change(late) == 16 * 60
    ended = RULES.advance(late, next_change(late)).state
    assert ended.over and next_change(ended) is None
