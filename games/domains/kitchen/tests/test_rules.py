"""The kitchen rules of SPEC section 4, one behaviour per test."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.bundled import CONTENT_DIR
from games.domains.kitchen.levels import read_levels
from games.domains.kitchen.rules import RULES
from games.domains.kitchen.state import KitchenState, Order
from games.domains.kitchen.world import LevelError, dish_total, lifetime, parse_recipes, task_interval
from games.engine.conformance import check_rules

BUNDLED = read_levels(CONTENT_DIR / "kitchen")

# A tiny kitchen of our own: sushi needs a chopboard, a pot (busy 3) and a mixer (busy 0).
SUSHI = {
    "name": "sushi",
    "kitchen": ["storage", "servingtable", "chopboard", "pot", "mixer", "blender"],
    "dishes": ["salmonSushi"],
    "recipes": {
        "salmonSashimi": {"tool": "chopboard", "ingredients": ["salmon"]},
        "cookedRice": {"tool": "pot", "ingredients": ["rice"]},
        "salmonSushi": {"tool": "mixer", "ingredients": ["salmonSashimi", "cookedRice"]},
    },
}


def step(state: KitchenState, *commands: tuple[int, str]):
    """Commit ``commands`` in order and execute the step; return the new state and its events."""
    events = []
    for agent, text in commands:
        transition = RULES.act(state, agent, text, state.step)
        assert transition.rejection is None, transition.rejection
        state = transition.state
        events += transition.events
    transition = RULES.advance(state, state.step + 1)
    return transition.state, events + list(transition.events)


def rejections(events):
    return [event for event in events if event.kind == "rejected"]


def fresh(agents: int = 2, **options) -> KitchenState:
    return RULES.initial_state(SUSHI, seed=3, agents=agents, options=options)


@pytest.mark.parametrize("name", sorted(BUNDLED))
@pytest.mark.parametrize("agents", [1, 3])
def test_conformance_on_every_bundled_level(name, agents):
    def random_policy(rules, state, agent):
        actions = rules.legal_actions(state, agent)
        return random.Random(state.step * 31 + agent).choice(actions) if actions else None

    check_rules(RULES, BUNDLED[name], agents=agents, policy=random_policy)


def test_derived_parameters_follow_the_formulas():
    recipes = parse_recipes(SUSHI["recipes"])
    # nodes: salmonSushi, salmonSashimi, salmon, cookedRice, rice = 5; wait: pot 3 - 1 = 2.
    assert dish_total("salmonSushi", recipes) == 2 + 3 * 5
    assert task_interval(["salmonSushi"], recipes, 1.0) == 6  # ceil(0.3 * 17) = ceil(5.1)
    assert lifetime("salmonSushi", recipes, 1.0) == 13  # ceil(2.5 * 0.3 * 17) = ceil(12.75)
    assert lifetime("salmonSushi", recipes, 2.0) == 26  # ceil(25.5)
    state = fresh(alpha=2.0)
    assert state.level.task_interval == 11 and state.orders[0].deadline == 26


def test_everyone_starts_at_the_serving_table_with_empty_hands_and_one_order():
    state = fresh(agents=3)
    assert [(a.location, a.holding) for a in state.agents] == [("servingtable0", None)] * 3
    assert [order.dish for order in state.orders] == ["salmonSushi"]


def test_commands_run_in_commit_order_within_a_step():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"), (1, "goto chopboard0"))
    state, _ = step(state, (0, "get storage0 salmon"))
    state, _ = step(state, (0, "goto chopboard0"))
    # agent0 puts the salmon, then agent1 activates: both succeed in the same step.
    after, events = step(state, (0, "put chopboard0"), (1, "activate chopboard0"))
    assert not rejections(events)
    assert after.tool("chopboard0").contents == ("salmonSashimi",)
    # The other order fails: activate runs before anything is on the board.
    after, events = step(state, (1, "activate chopboard0"), (0, "put chopboard0"))
    assert [e.agent for e in rejections(events)] == [1]
    assert "empty" in rejections(events)[0].message
    assert after.tool("chopboard0").contents == ("salmon",)


def test_a_second_command_in_the_same_step_replaces_the_first():
    state = fresh()
    state = RULES.act(state, 0, "goto pot0", 0).state
    assert RULES.awaiting(state) == frozenset({1})
    state = RULES.act(state, 0, "goto(agent0, mixer0)", 0).state
    state = RULES.advance(state, 1).state
    assert state.agents[0].location == "mixer0"


def test_malformed_commands_are_rejected_at_once_and_change_nothing():
    state = fresh()
    for text in [
        "fly pot0",
        "goto kitchen9",
        "get storage0",
        "get storage0 unicorn",
        "goto(agent1, pot0)",
        "noop pot0",
    ]:
        transition = RULES.act(state, 0, text, 0)
        assert transition.rejection is not None and transition.rejection.kind == "syntax", text
        assert transition.state == state


def test_tools_are_pickable_only_after_cooking_and_until_something_is_taken():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"))
    state, _ = step(state, (0, "get storage0 rice"))
    state, _ = step(state, (0, "goto pot0"))
    state, _ = step(state, (0, "put pot0"))
    state, events = step(state, (0, "get pot0"))
    assert rejections(events)[0].data["feedback"] == "not_pickable"
    state, _ = step(state, (0, "activate pot0"))  # step 5: busy for steps 5, 6, 7
    assert state.tool("pot0").contents == ("cookedRice",)
    for _ in range(2):
        state, events = step(state, (0, "get pot0"))
        assert rejections(events)[0].data["feedback"] == "tool_busy"
    state, events = step(state, (0, "get pot0"))
    assert not rejections(events) and state.agents[0].holding == "cookedRice"
    assert not state.tool("pot0").pickable and state.tool("pot0").contents == ()


def test_the_chopboard_is_always_pickable():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"))
    state, _ = step(state, (0, "get storage0 salmon"))
    state, _ = step(state, (0, "goto chopboard0"))
    state, _ = step(state, (0, "put chopboard0"))
    state, events = step(state, (0, "get chopboard0"))
    assert not rejections(events) and state.agents[0].holding == "salmon"


def test_putting_what_cannot_become_a_recipe_is_refused_as_waste_with_a_suggestion():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"))
    state, _ = step(state, (0, "get storage0 tuna"))
    state, _ = step(state, (0, "goto pot0"))
    after, events = step(state, (0, "put pot0"))
    problem = rejections(events)[0]
    assert problem.agent == 0 and problem.data["feedback"] == "waste"
    assert "would make waste" in problem.message
    assert after.tool("pot0").contents == () and after.agents[0].holding == "tuna"
    assert after.feedback[0].agent == 0
    assert any("storage0" in note.message for note in after.suggestions if note.agent == 0)
    # Storage throws it away.
    after, events = step(
        replace(after, agents=(replace(after.agents[0], location="storage0"), after.agents[1])), (0, "put storage0")
    )
    assert after.agents[0].holding is None and after.thrown_away == 1


def test_waste_in_a_tool_that_holds_something_says_so_and_names_only_other_tools():
    """ "putting bread into Pan 1 would make waste; it belongs in Pan 1, Pan 2": Pan 1 held a
    teammate's bread already, which the message did not say."""
    state = fresh()
    state, _ = step(state, (0, "goto mixer0"))
    cook = replace(state.agents[0], holding="salmonSashimi")
    tools = tuple(replace(t, contents=("salmonSashimi",)) if t.name == "mixer0" else t for t in state.tools)
    _, events = step(replace(state, agents=(cook, *state.agents[1:]), tools=tools), (0, "put mixer0"))
    (problem,) = rejections(events)
    assert problem.data["feedback"] == "waste"
    assert problem.message == (
        "putting salmonSashimi into mixer0 with the salmonSashimi it holds would make waste; "
        "finish what it holds first (or take that out)"
    )


def test_capacity_is_enforced():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"), (1, "goto storage0"))
    state, _ = step(state, (0, "get storage0 salmon"), (1, "get storage0 salmon"))
    state, _ = step(state, (0, "goto chopboard0"), (1, "goto chopboard0"))
    state, events = step(state, (0, "put chopboard0"), (1, "put chopboard0"))
    assert [(e.agent, e.data["feedback"]) for e in rejections(events)] == [(1, "full")]


def test_activate_needs_a_complete_recipe_and_says_what_is_missing():
    state = fresh()
    state, _ = step(state, (0, "goto storage0"))
    state, _ = step(state, (0, "get storage0 rice"))
    state, _ = step(state, (0, "goto mixer0"))
    state, events = step(state, (0, "put mixer0"))
    assert rejections(events)[0].data["feedback"] == "waste"  # raw rice is no mixer ingredient
    state, _ = step(state, (0, "goto pot0"))
    state, _ = step(state, (0, "put pot0"))
    state, events = step(state, (0, "goto mixer0"))
    state, events = step(state, (0, "activate mixer0"))
    assert rejections(events)[0].data["feedback"] == "no_recipe"


def test_starting_a_tool_that_has_made_its_dish_says_to_take_it():
    # a teammate started the mixer earlier in the same step: the cook who pressed Start too was
    # told "salsa in Mixer 1 is not a recipe yet (nothing can be cooked from that)"
    state = fresh()
    state, _ = step(state, (0, "goto storage0"))
    state, _ = step(state, (0, "get storage0 salmon"))
    state, _ = step(state, (0, "goto chopboard0"), (1, "goto chopboard0"))
    state, _ = step(state, (0, "put chopboard0"))
    state, _ = step(state, (0, "activate chopboard0"))
    assert state.tool("chopboard0").contents == ("salmonSashimi",)
    while state.tool("chopboard0").busy(state.step):
        state, _ = step(state)
    state, events = step(state, (1, "activate chopboard0"))
    (refused,) = rejections(events)
    assert refused.agent == 1 and refused.data["feedback"] == "no_recipe"
    assert "chopboard0 has already made salmonSashimi; take it with get(agent1, chopboard0)" in refused.message


def _serve_state(dish: str, orders: tuple[Order, ...]) -> KitchenState:
    state = fresh()
    return replace(
        state,
        agents=(replace(state.agents[0], holding=dish), state.agents[1]),
        orders=orders,
    )


def test_only_ordered_dishes_go_on_the_serving_table_and_serving_completes_the_order():
    state = _serve_state("salmonSashimi", (Order(1, "salmonSushi", 0, 13),))
    after, events = step(state, (0, "put servingtable0"))
    assert rejections(events)[0].data["feedback"] == "not_ordered"
    state = _serve_state("salmonSushi", (Order(1, "salmonSushi", 0, 13), Order(2, "salmonSushi", 0, 9)))
    after, events = step(state, (0, "put servingtable0"))
    assert after.completed == 1 and [o.id for o in after.orders] == [1]  # the most urgent order is served
    assert after.agents[0].holding is None and after.tool("servingtable0").contents == ()
    assert any(e.kind == "order_completed" and e.data["order"] == 2 for e in events)


def test_a_dish_cannot_be_served_before_it_is_ordered():
    state = _serve_state("salmonSushi", ())
    after, events = step(state, (0, "put servingtable0"))
    assert rejections(events)[0].data["feedback"] == "not_ordered"
    assert after.completed == 0 and after.agents[0].holding == "salmonSushi"


def test_serving_is_offered_while_the_dish_is_ordered_and_not_once_the_order_is_gone():
    # The same agent, place and dish on the same level, once with an order and once without: the
    # level's memo of legal commands must tell them apart.
    ordered = _serve_state("salmonSushi", (Order(1, "salmonSushi", 0, 13),))
    assert "put servingtable0" in RULES.legal_actions(ordered, 0)
    unordered = _serve_state("salmonSushi", ())
    assert unordered.level is ordered.level
    assert "put servingtable0" not in RULES.legal_actions(unordered, 0)
    assert "put servingtable0" in RULES.legal_actions(ordered, 0)


def test_orders_arrive_every_task_interval_at_most_six_and_fail_once_each():
    state = fresh(alpha=1.0, max_steps=60)
    interval = state.level.task_interval
    expired_events = 0
    arrivals = []
    while RULES.awaiting(state) or state.step < 60:
        transition = RULES.advance(state, state.step + 1)
        state = transition.state
        expired_events += sum(e.kind == "order_expired" for e in transition.events)
        arrivals += [e.time for e in transition.events if e.kind == "order_arrived"]
        assert len(state.orders) <= 6
        if state.step >= 60:
            break
    assert arrivals == list(range(interval, 60, interval))
    assert state.failed == expired_events == state.orders_made - len(state.orders)
    assert RULES.outcome(state).truncated


def test_counts_per_agent():
    state = fresh()
    state, _ = step(state, (0, "noop"), (1, "get pot0"))
    state, _ = step(state)
    result = RULES.result(state)
    assert result["agents"] == [
        {"agent": 0, "accepted": 1, "rejected": 0, "idle": 2},
        {"agent": 1, "accepted": 0, "rejected": 1, "idle": 1},
    ]


def test_observation_data_has_the_documented_shape():
    data = RULES.observe(fresh(), 1).data
    assert data["you"] == 1 and data["step"] == 0 and data["orders"][0]["remaining"] == 13
    assert {"name", "kind", "contents", "capacity", "busy", "busy_until", "pickable"} <= set(data["locations"][0])
    assert {"id", "location", "holding", "busy", "pending"} <= set(data["agents"][0])
    assert "goto storage0" in data["legal_actions"]


def test_a_level_whose_dish_cannot_be_made_is_refused():
    broken = dict(SUSHI, kitchen=["storage", "servingtable", "chopboard", "mixer"])
    with pytest.raises(LevelError, match="salmonSushi: needs pot"):
        RULES.initial_state(broken)


def test_advance_runs_only_the_steps_whose_time_is_over():
    state = RULES.act(fresh(), 0, "goto pot0", 0).state
    assert RULES.advance(state, 0.9).state == state  # mid-step: commands may still come
    later = RULES.advance(state, 3.5).state
    assert later.step == 3 and later.agents[0].location == "pot0"


def test_a_command_a_teammate_beat_to_the_tool_in_the_same_step_says_so():
    """Both took the salsa from Mixer 1 in one step; the second read only "Mixer 1 is empty", as if
    it had been empty when the player chose."""
    state = fresh()
    state, _ = step(state, (0, "goto chopboard0"), (1, "goto chopboard0"))
    agents = tuple(replace(a, holding="salmon") for a in state.agents)
    after, events = step(replace(state, agents=agents), (1, "put chopboard0"), (0, "put chopboard0"))
    (problem,) = rejections(events)
    assert problem.agent == 0 and problem.data["feedback"] == "full"
    assert problem.message.endswith("(agent1 used chopboard0 first this step)")
    # alone, the refusal is as it was
    crowded = replace(state, agents=agents, tools=after.tools)
    _, events = step(crowded, (0, "put chopboard0"))
    assert "first this step" not in rejections(events)[0].message
