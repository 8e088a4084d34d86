"""The heuristic kitchen dispatcher serves orders on every level and beats the random baseline."""

from __future__ import annotations

import pytest

from games.bundled import CONTENT_DIR
from games.domains.kitchen.cuisineworld_format import read_cuisineworld
from games.domains.kitchen.levels import read_levels
from games.domains.kitchen.rules import RULES
from games.planners.kitchen_dispatcher import heuristic, random_dispatcher
from games.planners.kitchen_npc import npc_policy
from games.planners.kitchen_sweep import play_episode, sweep

BUNDLED = read_levels(CONTENT_DIR / "kitchen")


def _heuristic_beats_random(definition):
    agents = definition.get("agents", 2)
    smart = sweep(definition, heuristic, agents=agents)
    baseline = sweep(definition, random_dispatcher, agents=agents)
    assert sum(entry["completed"] for entry in smart["by_alpha"].values()) > 0
    assert smart["cos"] > baseline["cos"], (smart, baseline)
    # With the most relaxed α the heuristic fails no order at all.
    assert smart["by_alpha"]["3.0"]["failed"] == 0


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_heuristic_beats_random_on_every_bundled_level(name):
    _heuristic_beats_random(BUNDLED[name])


@pytest.mark.datasets
@pytest.mark.slow
def test_heuristic_beats_random_on_every_cuisineworld_level(datasets_dir):
    converted = read_cuisineworld(datasets_dir / "cuisineworld")
    for name, (definition, _) in converted.items():
        assert definition is not None, name
        _heuristic_beats_random(definition)


def test_the_sweep_reports_completed_failed_and_cos_per_alpha():
    result = sweep(BUNDLED["salad-bar"], heuristic, agents=3, episodes=2, alphas=[1.0, 2.0])
    assert set(result["by_alpha"]) == {"1.0", "2.0"}
    for entry in result["by_alpha"].values():
        finished = entry["completed"] + entry["failed"]
        assert entry["success_rate"] == round(entry["completed"] / finished, 4)
    rates = [entry["success_rate"] for entry in result["by_alpha"].values()]
    assert result["cos"] == round(sum(rates) / 2, 4)


def test_dispatchers_are_deterministic_and_command_only_the_given_agents():
    state = RULES.initial_state(BUNDLED["busy-kitchen"], seed=4, agents=4)
    for dispatcher in (heuristic, random_dispatcher):
        commands = dispatcher(state, [1, 3])
        assert set(commands) == {1, 3}
        assert commands == dispatcher(state, [1, 3])
        for agent, command in commands.items():
            assert command in RULES.legal_actions(state, agent)


def test_heuristic_commands_are_accepted_by_the_rules():
    state = play_episode(BUNDLED["busy-kitchen"], heuristic, agents=4, seed=2)
    result = RULES.result(state)
    assert result["completed"] > 0
    assert sum(agent["rejected"] for agent in result["agents"]) == 0


def test_npcs_serve_orders_around_an_idle_human():
    """Agent 0 (the human) does nothing; the planner NPCs 1 and 2 still complete orders."""
    state = RULES.initial_state(BUNDLED["salad-bar"], seed=1, agents=3, options={"alpha": 2.0})
    while state.step < state.level.max_steps:
        for agent in (1, 2):
            command = npc_policy(RULES, state, agent)
            if command is not None:
                state = RULES.act(state, agent, command, state.step).state
        state = RULES.advance(state, state.step + 1).state
    assert state.completed >= 3
    assert state.agents[0].accepted == 0


def test_npc_policy_without_a_human_follows_one_plan():
    state = RULES.initial_state(BUNDLED["busy-kitchen"], seed=1, agents=4)
    planned = heuristic(state, [0, 1, 2, 3])
    for agent in range(4):
        command = npc_policy(RULES, state, agent)
        assert command == planned[agent]
        state = RULES.act(state, agent, command, state.step).state


def test_the_planner_npc_passes_the_engine_conformance_suite_and_serves_orders():
    from games.engine.conformance import check_rules
    from games.engine.episode import play

    definition = BUNDLED["breakfast-grill"]
    check_rules(RULES, definition, policy=npc_policy, agents=3, options={"alpha": 2.0})
    episode = play(RULES, definition, dict.fromkeys(range(3), npc_policy), seed=1, options={"alpha": 2.0})
    assert episode.state.completed > 0


def test_a_tool_left_with_an_abandoned_recipe_is_finished_and_cleared():
    """The only mixer holds lettuce for a salad whose order expired; a salsa order needs the mixer."""
    from dataclasses import replace

    from games.domains.kitchen.state import Order

    state = RULES.initial_state(BUNDLED["salad-bar"], seed=0, agents=3, options={"alpha": 4.0})
    tools = tuple(replace(t, contents=("lettuceShreds",)) if t.name == "mixer0" else t for t in state.tools)
    state = replace(state, tools=tools, orders=(Order(1, "salsa", 0, 40),))
    assert state.level.task_interval > 25  # no other order comes to unblock it by chance
    while state.step < 25:
        for agent, command in heuristic(state, [0, 1, 2]).items():
            state = RULES.act(state, agent, command, state.step).state
        state = RULES.advance(state, state.step + 1).state
    assert [entry[1] for entry in state.served] == ["salsa"]


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_one_cook_alone_can_serve_each_bundled_level_at_its_own_pace(name):
    # a person plays alone (or beside teammates who help little); at α 1 Breakfast grill's toast
    # lived 6 steps, fewer than one cook needs from a standing start (about 10), so nobody alone
    # served its first order. At each level's own α the planner alone serves at least 40 %.
    level = BUNDLED[name]
    result = sweep(level, heuristic, agents=1, episodes=4, alphas=[level.get("alpha", 1.0)])
    (figures,) = result["by_alpha"].values()
    assert figures["success_rate"] >= 0.4, figures


def test_the_steps_a_dish_needs_are_worked_out_once_per_product_of_its_tree(monkeypatch):
    # a tree six deep, each recipe made of five of the one before: worked out again for every use
    # of a product, one question took 7,031 calls (2 s of the studio's preview)
    from games.planners import kitchen_dispatcher

    book = {f"stage{i}": {"tool": "mixer", "ingredients": [f"stage{i - 1}"] * 5 if i else ["tomato"]} for i in range(6)}
    level = {"name": "deep", "kitchen": ["storage", "servingtable", "mixer"], "dishes": ["stage5"], "recipes": book}
    state = RULES.initial_state(level, seed=1)
    asked = []
    answer = kitchen_dispatcher._steps_needed

    def counted(*args):
        asked.append(args[1])
        return answer(*args)

    monkeypatch.setattr(kitchen_dispatcher, "_steps_needed", counted)
    # each stage: its ingredient's steps + activating (1) + the mixer's steps (at least 1) + taking it (2)
    assert kitchen_dispatcher._steps_needed(state, "stage5") == 3 + 6 * (1 + 1 + 2)
    assert sorted(set(asked)) == ["stage0", "stage1", "stage2", "stage3", "stage4", "stage5", "tomato"]
    assert len(asked) == 1 + 5 * 5 + 1  # the dish, each use of stages 4-0 (answered once each), tomato
