import json

import pytest

from games.domains.tasks.definition import compose
from games.domains.tasks.rules import RULES
from games.domains.tasks.tests.helpers import RICE, SOUP, bundled, bundled_names, task
from games.engine.conformance import check_rules
from games.engine.episode import first_legal, play


def run(state, agent, action):
    transition = RULES.act(state, agent, action, RULES.now(state))
    return transition.state, transition


def kinds(transition):
    return [event.kind for event in transition.events]


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_tasks_pass_the_engine_conformance_suite(name):
    check_rules(RULES, bundled(name))
    check_rules(RULES, bundled(name), agents=2)


def test_combined_and_constrained_scenarios_pass_conformance():
    check_rules(RULES, compose([RICE, SOUP]), agents=3)
    check_rules(RULES, compose([RICE, SOUP]), options={"constrained": True})


def test_type_1_occupies_the_agent_and_type_2_frees_it_after_one_minute():
    state = RULES.initial_state(RICE)
    state, t = run(state, 0, "Pick   RICE")
    assert t.rejection is None and t.events[0].data["end"] == 2
    assert RULES.awaiting(state) == frozenset() and RULES.next_deadline(state) == 2
    state = RULES.advance(state, 2).state
    state, t = run(state, 0, "cook rice in pot")
    assert "runs by itself" in t.events[0].message
    assert RULES.next_deadline(state) == 3  # the agent is free again after one minute
    state = RULES.advance(state, 3).state
    assert RULES.awaiting(state) == frozenset({0})
    state, t = run(state, 0, "wash dish")  # while the pot cooks
    assert t.rejection is None
    completed = RULES.advance(state, 6)
    assert [e.message for e in completed.events if e.kind == "completed"] == [
        "wash dish is complete: dish is clean.",  # same minute: definition order
        "cook rice in pot is complete: rice is cooked.",
    ]


@pytest.mark.parametrize(
    ("action", "kind", "says"),
    [
        ("dance", "invalid_action", "Verbs here"),
        ("wash spoon", "unknown_object", "Objects: dish"),
        ("chop dish", "wrong_object", "With dish you can: wash dish"),
        ("add rice to dish", "dependency", "rice is not in dish"),
        ("cook rice in pot", "dependency", "rice is unpicked"),
    ],
)
def test_each_rejection_names_its_kind_and_says_what_to_do(action, kind, says):
    state = RULES.initial_state(RICE)
    state, t = run(state, 0, action)
    assert t.rejection is not None and t.rejection.kind == kind
    if kind == "dependency" and action.startswith("add"):
        says = "do 'cook rice in pot' first"
    assert says in t.rejection.message


def test_a_rejection_uses_up_the_minute_while_background_actions_keep_running():
    state = RULES.initial_state(RICE)
    state, _ = run(state, 0, "pick rice")
    state = RULES.advance(state, 2).state
    state, _ = run(state, 0, "cook rice in pot")
    state = RULES.advance(state, 3).state
    state, t = run(state, 0, "pick rice")
    assert t.rejection.kind == "already_done"
    assert RULES.awaiting(state) == frozenset() and RULES.next_deadline(state) == 4
    assert RULES.result(state)["counts"]["repeated"] == 1


def test_busy_objects_are_locked_and_the_message_says_until_when():
    state = RULES.initial_state(RICE, agents=2)
    state, _ = run(state, 0, "wash dish")
    state, t = run(state, 1, "wash dish")
    assert t.rejection.kind == "already_done"
    state = RULES.initial_state(compose([RICE, SOUP]), agents=2, options={"constrained": True})
    for agent, action in [(0, "pick rice"), (1, "pick carrot")]:
        state, _ = run(state, agent, action)
    state = RULES.advance(state, 2).state
    state, _ = run(state, 0, "cook rice in pot")
    state, t = run(state, 1, "cook carrot in pot")
    assert t.rejection.kind == "object_busy"
    assert t.rejection.message.startswith("Pot is in use by cook rice in pot until t=6")


def test_the_shared_pot_pool_lets_two_tasks_cook_at_once_unless_constrained():
    state = RULES.initial_state(compose([RICE, SOUP]), agents=2)
    for agent, action in [(0, "pick rice"), (1, "pick carrot")]:
        state, _ = run(state, agent, action)
    state = RULES.advance(state, 2).state
    state, _ = run(state, 0, "cook rice in pot")
    state, t = run(state, 1, "cook carrot in pot")
    assert t.rejection is None
    data = RULES.observe(state, 0).data
    pot = next(obj for obj in data["objects"] if obj["name"] == "pot")
    assert pot["capacity"] == 2 and pot["in_use"] == 2
    assert {h["action"] for h in pot["holders"]} == {"cook rice in pot", "cook carrot in pot"}


def test_an_ambiguous_object_in_a_combination_names_both_candidates():
    state = RULES.initial_state(compose([RICE, SOUP]))
    _, t = run(state, 0, "wash dish")
    assert t.rejection.kind == "unknown_object"
    assert "dish_1 (rice) or dish_2 (soup)" in t.rejection.message


def test_an_agent_cannot_act_while_busy_and_that_costs_nothing():
    state = RULES.initial_state(RICE)
    state, _ = run(state, 0, "wash dish")
    again, t = run(state, 0, "pick rice")
    assert t.rejection.kind == "agent_busy" and "until t=3" in t.rejection.message
    assert RULES.dump_state(again) == RULES.dump_state(state)


def test_five_rejections_in_a_row_end_the_episode():
    state = RULES.initial_state(RICE)
    for _ in range(5):
        state = (
            RULES.advance(state, RULES.next_deadline(state)).state if RULES.awaiting(state) == frozenset() else state
        )
        state, t = run(state, 0, "juggle dish")
    assert RULES.outcome(state).truncated and "rejected" in RULES.outcome(state).reason
    assert kinds(t)[-1] == "finished"


def test_the_time_limit_is_forty_minutes_per_task():
    state = RULES.initial_state(compose([RICE, SOUP]))
    assert RULES.observe(state, 0).data["time_limit"] == 80
    ended = RULES.advance(state, 500)
    assert ended.state.time == 80 and RULES.outcome(ended.state).truncated
    assert RULES.next_deadline(ended.state) is None
    _, t = run(ended.state, 0, "wash dish_1")
    assert t.rejection.kind == "game_over"


def test_metrics_after_a_complete_episode():
    episode = play(RULES, RICE, {0: first_legal})
    result = RULES.result(episode.state)
    assert RULES.outcome(episode.state).terminated
    assert result["progress"] == 100 and result["completed"]
    assert result["completion_time"] == episode.state.time
    assert result["completion_speed"] == pytest.approx(100 / result["completion_time"])
    assert result["counts"]["valid"] == 4


def test_necessary_and_unnecessary_waits_are_told_apart():
    state = RULES.initial_state(task("one", [("pick rice", 2, False, []), ("wash rice", 1, False, ["pick rice"])]))
    state, t = run(state, 0, "wait")  # pick rice could have started
    assert t.events[0].data == {"necessary": False}
    two = RULES.initial_state(
        task("one", [("pick rice", 2, False, []), ("wash rice", 1, False, ["pick rice"])]), agents=2
    )
    two, _ = run(two, 0, "pick rice")
    two, t = run(two, 1, "wait")  # nothing left to start
    assert t.events[0].data == {"necessary": True}
    counts = RULES.result(two)["counts"]
    assert counts["necessary_wait"] == 1 and counts["unnecessary_wait"] == 0


def test_the_observation_shows_tasks_running_actions_and_agents():
    state = RULES.initial_state(compose([RICE, SOUP]), agents=2)
    state, _ = run(state, 0, "pick rice")
    observation = RULES.observe(state, 1)
    assert "pick rice (2 min, occupies you): running (agent 1) until t=2" in observation.text
    assert "You can start now:" in observation.text
    data = observation.data
    json.dumps(data)
    assert [t["name"] for t in data["tasks"]] == ["rice", "soup"]
    pick = data["tasks"][0]["actions"][1]
    assert pick == {
        "action": "pick rice",
        "minutes": 2,
        "background": False,
        "objects": ["rice"],
        "requires": [],
        "status": "running",
        "agent": 0,
        "start": 0,
        "end": 2,
    }
    assert data["agents"][0] == {"agent": 0, "free": False, "busy_until": 2, "doing": "pick rice"}
    assert data["running"] == [{"action": "pick rice", "agent": 0, "start": 0, "end": 2, "background": False}]
    cook = data["tasks"][0]["actions"][2]
    assert cook["status"] == "waiting"


def test_waiting_until_something_finishes_frees_the_agent_at_the_next_completion():
    state = RULES.initial_state(
        task("one", [("pick rice", 2, False, []), ("boil water", 5, True, []), ("wash cup", 3, False, [])]), agents=2
    )
    assert "wait until something finishes" not in RULES.legal_actions(state, 0)  # nothing runs yet
    state, _ = run(state, 1, "pick rice")
    assert "wait until something finishes" in RULES.legal_actions(state, 0)
    state, t = run(state, 0, "wait until something finishes")
    assert t.rejection is None and state.agents[0].busy_until == 2  # pick rice ends at t=2
    assert "t=2" in t.events[0].message


def test_an_offered_action_and_the_same_text_typed_loosely_do_the_same():
    definition = task("one", [("pick rice", 2, False, []), ("wash cup", 3, False, [])])
    exact = run(RULES.initial_state(definition), 0, "pick rice")[1]
    loose = run(RULES.initial_state(definition), 0, "  Pick   RICE ")[1]
    assert exact.state == loose.state
    assert [e.to_json() for e in exact.events] == [e.to_json() for e in loose.events]


def test_an_action_named_like_a_wait_is_still_read_as_the_wait():
    definition = task("one", [("wait until something finishes", 2, False, []), ("wash cup", 3, False, [])])
    state = RULES.initial_state(definition)
    _, t = run(state, 0, "wait until something finishes")
    assert t.rejection is not None and "Nothing is running" in t.events[0].message
