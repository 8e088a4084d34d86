import pytest

from games.domains.recipes.text import ActionSyntaxError, PauseAction, StepAction, StopAction, parse_actions
from games.domains.recipes.timefmt import TimeFormatError, parse_amount, parse_clock
from games.engine.durations import format_clock


def test_clock_accepts_hh_mm_ss_and_mm_ss():
    assert parse_clock("01:02:03") == 3723
    assert parse_clock("05:30") == 330
    assert parse_clock("100:00:00") == 360000
    assert format_clock(3723) == "01:02:03"


@pytest.mark.parametrize("bad", ["5", "1:60:00", "00:00:75", "five", "1 min"])
def test_clock_rejects_other_forms_with_advice(bad):
    with pytest.raises(TimeFormatError, match="HH:MM:SS"):
        parse_clock(bad)


def test_amounts_in_min_sec_and_hour():
    assert parse_amount("10 min") == 600
    assert parse_amount("30 sec") == 30
    assert parse_amount("1 hour") == 3600
    with pytest.raises(TimeFormatError):
        parse_amount("ten minutes")


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (float("inf"), "not a duration"),
        (float("nan"), "not a duration"),
        (10**30, "longer than a day"),
        ("25 hour", "longer than a day"),
        ("9" * 400 + " hour", "longer than a day"),  # infinite once read as a number
    ],
)
def test_an_amount_is_a_finite_duration_of_at_most_a_day(bad, said):
    # infinity crashed round(), and 10**30 seconds the solver
    assert parse_amount("24 hour") == 86_400
    with pytest.raises(TimeFormatError, match=said):
        parse_amount(bad)


def test_step_with_all_forms():
    assert parse_actions("Step(3, Cobbler, 00:01:00, 00:05:00)") == [StepAction(3, "Cobbler", 60, 300)]
    assert parse_actions('step(3, "Daikon-Radish", "01:00", "10:00")') == [StepAction(3, "Daikon-Radish", 60, 600)]
    assert parse_actions("Step(2, Cobbler)") == [StepAction(2, "Cobbler")]
    assert parse_actions("Step(2, Cobbler, 00:00:30)") == [StepAction(2, "Cobbler", 30)]


def test_several_steps_are_a_plan_and_pause_stop_parse():
    text = "First Step(0, A, 00:10:00, 00:00:00)\nthen Step(1, A, 00:02:00, 00:00:00)."
    assert [a.step for a in parse_actions(text)] == [0, 1]
    assert parse_actions("Pause(4, Cobbler)") == [PauseAction(4, "Cobbler")]
    assert parse_actions("Stop()") == [StopAction()]


@pytest.mark.parametrize(
    "bad, says",
    [
        ("make pancakes", "Step(step, recipe, duration, start)"),
        ("Step(one, Cobbler)", "not a step number"),
        ("Step(1, Cobbler, 2 min, 00:00:00)", "HH:MM:SS"),
        ("Step(1)", "has 1 values"),
    ],
)
def test_malformed_actions_say_how_to_write_one(bad, says):
    with pytest.raises(ActionSyntaxError, match=r".*") as error:
        parse_actions(bad)
    assert says in str(error.value)


def test_action_text_round_trips():
    action = StepAction(7, "Cobbler", 1800, 660)
    assert parse_actions(action.text()) == [action]
