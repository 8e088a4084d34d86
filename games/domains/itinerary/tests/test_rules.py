"""Every itinerary check, one behaviour per test, on the tiny world of worlds.py."""

from __future__ import annotations

import json

import pytest

from games.domains.itinerary.actions import ActionSyntaxError, parse_action, parse_plan
from games.domains.itinerary.rules import GOALS_MET, RULES, TIME_UP
from games.domains.itinerary.scoring import score
from games.domains.itinerary.state import WORLDS
from games.domains.itinerary.tests.worlds import definition
from games.engine.compiled import UnknownScenario, scenario_key
from games.engine.conformance import check_rules


def run(actions, **overrides):
    state = RULES.initial_state(definition(**overrides))
    events = []
    for action in actions:
        transition = RULES.act(state, 0, action, RULES.now(state))
        state = transition.state
        events.extend(transition.events)
    return state, events


def failed(state):
    return [c.check for c in state.checks if not c.passed]


def test_conformance_on_tiny_world():
    check_rules(RULES, definition())
    check_rules(RULES, definition(), agents=2)


def test_conformance_on_round_trip_brief():
    check_rules(
        RULES,
        definition(
            kind="inter-city",
            return_to_origin=True,
            rest_hours=False,
            constraints={"city_days": [{"city": "Beta", "days": 1}], "spot_minutes": []},
        ),
    )


def test_malformed_action_is_rejected_and_changes_nothing():
    state = RULES.initial_state(definition())
    transition = RULES.act(state, 0, "fly to the moon", 0)
    assert transition.rejection is not None and "go_to_city(" in transition.rejection.message
    assert RULES.dump_state(transition.state) == RULES.dump_state(state)


def test_bad_time_text_is_a_syntax_rejection():
    state = RULES.initial_state(definition())
    transition = RULES.act(state, 0, "visit(Alpha Railway Hotel, tomorrow, later)", 0)
    assert transition.rejection.kind == "syntax"
    assert "YYYY-MM-DD HH:MM" in transition.rejection.message


def test_unknown_train_fails_train_check_and_traveller_stays():
    state, events = run(["go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, Z9)"])
    assert failed(state) == ["train"]
    assert state.city == "Alpha" and state.clock == 0 and state.spent == 0
    assert events[0].kind == "rejected" and "train failed" in events[0].message and "pick a train" in events[0].message


def test_train_with_wrong_times_names_the_right_ones():
    state, events = run(["go_to_city(Alpha, Beta, 2024-01-01 10:05, 2024-01-01 11:00, T1)"])
    assert failed(state) == ["train"]
    assert "departs at 2024-01-01 10:00" in events[0].message
    assert "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)" in events[0].message


def test_train_from_the_wrong_city_fails_position():
    state, events = run(["go_to_city(Beta, Alpha, 2024-01-01 16:00, 2024-01-01 17:00, T2)"])
    assert failed(state) == ["position"]
    assert "the traveller is in Alpha" in events[0].message


def test_train_already_gone_fails_time_order():
    state, _ = run(
        [
            "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)",
            "go_to_city(Beta, Alpha, 2024-01-01 16:00, 2024-01-01 17:00, T2)",
            "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)",
        ]
    )
    assert failed(state) == ["time_order"]


def test_train_moves_charges_and_lodges_at_railway_hotel():
    state, events = run(["go_to_city(Alpha Railway Hotel, beta, 2024-01-01 10:00, 2024-01-01 11:00, t1)"])
    assert failed(state) == []
    assert (state.city, state.place, state.spent, state.clock) == ("Beta", "Beta Railway Hotel", 40.0, 240)
    assert events[0].kind == "completed"
    # The gap before the train is a stay in Alpha.
    assert [s.kind for s in state.segments] == ["stay", "train"] and state.segments[0].implicit


def test_transfer_with_wrong_minutes_fails_and_says_the_arrival():
    state, events = run(["go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:10)"])
    assert failed(state) == ["transfer_duration"]
    assert "takes 20 minutes" in events[0].message and "arrive at 2024-01-01 09:20" in events[0].message


def test_transfer_between_cities_is_refused():
    state, events = run(["go_to_place(Alpha Railway Hotel, Garden, 2024-01-01 09:00, 2024-01-01 09:10)"])
    assert failed(state) == ["transfer_duration"]
    assert "use go_to_city" in events[0].message


def test_transfer_from_elsewhere_fails_position():
    state, _ = run(["go_to_place(Tower, Alpha Railway Hotel, 2024-01-01 09:00, 2024-01-01 09:20)"])
    assert failed(state) == ["position"]


def test_visit_elsewhere_fails_position_and_end_before_begin_fails_time_order():
    state, _ = run(["visit(Tower, 2024-01-01 09:00, 2024-01-01 10:00)"])
    assert failed(state) == ["position"]
    state, _ = run(["stay_in(Alpha, 2024-01-01 10:00, 2024-01-01 09:00)"])
    assert failed(state) == ["time_order"]


def test_waiting_at_a_sight_before_leaving_counts_as_visiting_it():
    state, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "go_to_place(Tower, Alpha Railway Hotel, 2024-01-01 10:20, 2024-01-01 10:40)",
        ]
    )
    assert state.spot_minutes() == {"Tower": 60}
    implicit = [s for s in state.segments if s.implicit]
    assert [s.kind for s in implicit] == ["stay", "visit"]


def test_visit_outside_opening_hours_is_done_but_fails_the_constraint():
    state, events = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 07:30, 2024-01-01 07:50)",
            "visit(Tower, 2024-01-01 08:00, 2024-01-01 09:30)",
        ]
    )
    assert failed(state) == ["opening_hours"]
    assert state.spot_minutes()["Tower"] == 90
    violated = [e for e in events if e.kind == "violated"]
    assert violated and "open 09:00-18:00" in violated[0].message


def test_visit_inside_opening_hours_passes():
    state, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 08:30, 2024-01-01 08:50)",
            "visit(Tower, 2024-01-01 09:00, 2024-01-01 10:00)",
        ]
    )
    assert failed(state) == []
    assert [c.check for c in state.checks if c.level == "constraints"] == ["rest_hours", "opening_hours", "rest_hours"]


def test_transfer_in_rest_hours_fails_rest_check():
    state, events = run(["go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 22:30, 2024-01-01 22:50)"])
    assert failed(state) == ["rest_hours"]
    assert any("22:00-07:00" in e.message for e in events if e.kind == "violated")


def test_rest_hours_not_checked_when_the_brief_has_none():
    state, _ = run(
        ["go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 22:30, 2024-01-01 22:50)"],
        rest_hours=False,
    )
    assert failed(state) == []


def test_meal_windows_must_stay_free():
    state, events = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 10:40, 2024-01-01 11:00)",
            "visit(Tower, 2024-01-01 11:00, 2024-01-01 12:30)",
        ]
    )
    checks = {c["subject"]: c for c in score(state)["checks"] if c["check"] == "meal"}
    assert checks["lunch"]["passed"] is False and "12:00-13:00" in checks["lunch"]["message"]
    assert checks["dinner"]["passed"] is True
    assert any(e.kind == "violated" and "lunch" in e.message for e in events)


def test_spot_minutes_partial_visit_reports_what_is_missing():
    state, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "visit(Tower, 2024-01-01 09:20, 2024-01-01 09:50)",
        ]
    )
    spot = next(c for c in score(state)["checks"] if c["check"] == "spot_minutes")
    assert not spot["passed"] and "30 minutes more" in spot["message"]


def test_goals_met_ends_the_trip_and_scores_full():
    state, events = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "visit(Tower, 2024-01-01 09:20, 2024-01-01 10:20)",
        ]
    )
    assert state.over == GOALS_MET and RULES.outcome(state).terminated
    assert events[-1].kind == "finished"
    result = score(state)
    assert result["executability"] == 60 and result["constraints"] == 20
    # 200 minutes used of a 100..600 range: 20 * (600 - 200) / 500.
    assert result["efficiency"] == pytest.approx(16.0)
    assert (
        RULES.act(state, 0, "stay_in(Alpha, 2024-01-01 11:00, 2024-01-01 12:00)", state.clock).rejection.kind == "over"
    )


def test_faster_plans_score_higher():
    fast, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "visit(Tower, 2024-01-01 09:20, 2024-01-01 10:20)",
        ]
    )
    slow, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 13:00, 2024-01-01 13:20)",
            "visit(Tower, 2024-01-01 13:20, 2024-01-01 14:20)",
        ]
    )
    assert score(fast)["efficiency"] > score(slow)["efficiency"] > 0


def test_efficiency_and_constraints_only_count_after_a_perfect_level():
    state, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:15)",  # wrong minutes
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "visit(Tower, 2024-01-01 09:20, 2024-01-01 10:20)",
        ]
    )
    result = score(state)
    # 8 elementary checks (3 + 3 + 2), one failed.
    assert result["executability"] == pytest.approx(60 * 7 / 8)
    assert result["constraints"] == 0 and result["efficiency"] == 0
    assert any("transfer_duration failed" in m for m in result["failed_checks"])


def test_city_days_return_budget_and_end_time():
    overrides = {
        "kind": "inter-city",
        "return_to_origin": True,
        "rest_hours": False,
        "check_meals": False,
        "budget": 70.0,
        "objective": "money",
        "efficiency": {"quantity": "money", "min": 70, "max": 130},
        "constraints": {"city_days": [{"city": "Beta", "days": 1}], "spot_minutes": []},
    }
    state, _ = run(
        [
            "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)",
            "go_to_city(Beta, Alpha, 2024-01-01 16:00, 2024-01-01 17:00, T2)",
        ],
        **overrides,
    )
    checks = {c["check"]: c for c in score(state)["checks"] if c["level"] == "constraints"}
    assert not checks["city_days"]["passed"] and "only 0 of 1" in checks["city_days"]["message"]
    assert checks["return_to_origin"]["passed"]
    assert not checks["budget"]["passed"] and "over the 70 budget" in checks["budget"]["message"]
    assert checks["end_time"]["passed"]

    state, _ = run(
        [
            "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)",
            "go_to_city(Beta, Alpha, 2024-01-02 20:00, 2024-01-02 21:00, T4)",
        ],
        **{**overrides, "budget": 100.0, "end": "2024-01-02 20:30"},
    )
    checks = {c["check"]: c for c in score(state)["checks"] if c["level"] == "constraints"}
    assert checks["city_days"]["passed"] and checks["budget"]["passed"] and checks["return_to_origin"]["passed"]
    assert not checks["end_time"]["passed"] and "finish earlier" in checks["end_time"]["message"]


def test_one_day_rule_counts_a_morning_arrival():
    world = definition()["world"]
    world = {
        **world,
        "trains": [*world["trains"], ["T5", "Beta", "Alpha", "2024-01-02 06:00", "2024-01-02 07:00", 10.0]],
    }
    overrides = {
        "return_to_origin": True,
        "rest_hours": False,
        "check_meals": False,
        "world": world,
        "constraints": {"city_days": [{"city": "Beta", "days": 1}], "spot_minutes": []},
    }
    # 19 hours in Beta, arriving at 11:00: a day only under the arrive-before-noon rule.
    plan = [
        "go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)",
        "go_to_city(Beta, Alpha, 2024-01-02 06:00, 2024-01-02 07:00, T5)",
    ]
    without, _ = run(plan, **overrides)
    with_rule, _ = run(plan, one_day=True, **overrides)
    assert without.days_in("Beta") == 0 and with_rule.days_in("Beta") == 1
    assert with_rule.over == GOALS_MET and without.over == ""


def test_advance_waits_and_closes_the_trip_at_the_end_time():
    state = RULES.initial_state(definition())
    transition = RULES.advance(state, 10_000)
    assert transition.state.clock == transition.state.world.end
    assert transition.state.over == TIME_UP and RULES.outcome(transition.state).truncated
    assert [e.kind for e in transition.events] == ["waited", "finished"]


def test_state_round_trips_after_actions():
    state, _ = run(
        [
            "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)",
            "visit(Tower, 2024-01-01 09:20, 2024-01-01 09:40)",
        ]
    )
    raw = json.loads(json.dumps(RULES.dump_state(state)))
    assert RULES.dump_state(RULES.load_state(raw)) == RULES.dump_state(state)


def test_a_dump_names_its_world_instead_of_copying_it_and_loads_once_the_world_is_compiled():
    state, _ = run(["visit(Alpha Railway Hotel, 2024-01-01 09:00, 2024-01-01 09:30)"])
    raw = json.loads(json.dumps(RULES.dump_state(state)))
    assert "definition" not in raw and raw["world"]["key"] == scenario_key(definition())
    WORLDS.clear()  # another process, which has not compiled this world yet
    with pytest.raises(UnknownScenario):
        RULES.load_state(raw)
    RULES.initial_state(definition())  # a game on the definition compiles it
    assert RULES.load_state(raw) == state


def test_an_older_dump_that_carries_its_definition_still_loads():
    state, _ = run(["visit(Alpha Railway Hotel, 2024-01-01 09:00, 2024-01-01 09:30)"])
    raw = json.loads(json.dumps(RULES.dump_state(state)))
    del raw["world"]
    raw["definition"] = definition()
    WORLDS.clear()
    assert RULES.load_state(raw) == state


def test_observation_data_shows_clock_wallet_places_and_goals():
    state, _ = run(["go_to_city(Alpha, Beta, 2024-01-01 10:00, 2024-01-01 11:00, T1)"])
    data = RULES.observe(state, 0).data
    assert data["clock"]["text"] == "2024-01-01 11:00"
    assert data["wallet"] == {"spent": 40.0, "budget": 100.0, "left": 60.0}
    assert data["position"] == {"city": "Beta", "place": "Beta Railway Hotel", "kind": "hotel"}
    garden = next(p for p in data["places"] if p["name"] == "Garden")
    assert garden["transfer_minutes"] == 10 and garden["opens"] == 8
    assert {t["number"] for t in data["trains"]} == {"T2", "T3", "T4"}
    assert data["goals"][0] == {"check": "spot_minutes", "subject": "Tower", "required": 60, "done": 0, "met": False}
    assert "Garden" in RULES.observe(state, 0).text


def test_legal_actions_all_pass_the_elementary_checks():
    state = RULES.initial_state(definition())
    for action in RULES.legal_actions(state, 0):
        assert RULES.act(state, 0, action, 0).rejection is None, action


def test_the_menu_is_worked_out_once_per_state_and_each_caller_gets_its_own_list(monkeypatch):
    from games.domains.itinerary import rules as itinerary_rules

    state = RULES.initial_state(definition())
    calls = []
    real = itinerary_rules.now_forms.menu
    monkeypatch.setattr(itinerary_rules.now_forms, "menu", lambda s: calls.append(s) or real(s))
    first = RULES.legal_actions(state, 0)
    first.append("something of the caller's")
    again = RULES.legal_actions(state, 0)
    assert again == real(state) and "something of the caller's" not in again
    assert len(calls) == 1
    moved = RULES.act(state, 0, again[0], 0).state  # a new state has its own menu
    assert RULES.legal_actions(moved, 0) == real(moved) and len(calls) == 2
    assert RULES.load_state(RULES.dump_state(state)) == state


@pytest.mark.parametrize(
    "text",
    [
        "go_to_city('Alpha', 'Beta', '2024-01-01 10:00', '2024-01-01 11:00', 'T1')",
        'self.go_to_city(origin="Alpha", destination="Beta", departure_time="2024-01-01 10:00", '
        'arrival_time="2024-01-01 11:00", ticket_number="T1")',
        "goto_city(Alpha, Beta, 2024-01-01 10:00:00, 2024-01-01 11:00, T1)",
    ],
)
def test_parser_accepts_the_ways_llms_write_actions(text):
    state = RULES.initial_state(definition())
    assert RULES.act(state, 0, text, 0).rejection is None


def test_parser_keeps_apostrophes_and_reports_arity():
    assert parse_action("visit('Xi'an Railway Hotel', 2024-01-01 10:00, 2024-01-01 11:00)").args[0] == (
        "Xi'an Railway Hotel"
    )
    with pytest.raises(ActionSyntaxError, match="takes 3 arguments"):
        parse_action("visit(Tower, 2024-01-01 10:00)")
    assert parse_plan("# plan\n1. visit(a, b, c)\n\n- stay_in(x, y, z)\n") == ["visit(a, b, c)", "stay_in(x, y, z)"]
