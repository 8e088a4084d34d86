"""The recipes planner NPC: re-plans from the current state and answers in the "now" form."""

from __future__ import annotations

from games.agents.planner_agent import policy_for
from games.domains.recipes.rules import RULES
from games.domains.recipes.tests.kitchens import BAKE, MUFFINS, ROAST, SOUP, kitchen
from games.engine.episode import play
from games.planners import recipes_heuristic
from games.planners.recipes_npc import npc_policy

LIVE = {"max_rejections": 0, "max_repeats": 0}


def test_the_planner_seat_finds_the_recipes_policy():
    assert policy_for("recipes") is npc_policy


def test_alone_it_cooks_everything_as_fast_as_the_heuristic_plan():
    for definition in (kitchen(BAKE, SOUP), kitchen(MUFFINS, ROAST), kitchen(BAKE, SOUP, MUFFINS)):
        episode = play(RULES, definition, {0: npc_policy}, options=LIVE)
        assert episode.state.status == "success", episode.state.reason
        assert episode.state.time == recipes_heuristic.plan(definition).makespan
        assert not [e for e in episode.events if e.kind == "rejected"]
        # every action is in the form that means "now": step and recipe, no times
        assert all(a.action.count(",") == 1 for a in episode.actions), episode.actions


def test_it_replans_around_what_a_teammate_did():
    definition = kitchen(BAKE, SOUP)
    state = RULES.initial_state(definition, agents=2, options=LIVE)
    # The human chops the soup's vegetables first, which the plan would have done later.
    state = RULES.act(state, 0, "Step(0, Soup)", 0).state
    episode_state = state
    for _ in range(50):
        if episode_state.over:
            break
        action = npc_policy(RULES, episode_state, 1)
        if action is not None:
            transition = RULES.act(episode_state, 1, action, episode_state.time)
            assert transition.rejection is None, transition.rejection
            episode_state = transition.state
            continue
        episode_state = RULES.advance(episode_state, RULES.next_deadline(episode_state)).state
    assert episode_state.status == "success", episode_state.reason
    assert {c.agent for c in episode_state.chunks} == {0, 1}


def test_it_waits_while_busy_or_when_its_next_start_is_later():
    definition = kitchen(SOUP)
    state = RULES.initial_state(definition, options=LIVE)
    state = RULES.act(state, 0, npc_policy(RULES, state, 0), 0).state  # chop (keeps the cook busy)
    assert npc_policy(RULES, state, 0) is None
    state = RULES.advance(state, 240).state
    state = RULES.act(state, 0, npc_policy(RULES, state, 0), 240).state  # heat the pot (autonomous)
    assert state.status_of(0, 1) == "running"
    assert npc_policy(RULES, state, 0) is None  # the stir can only follow the heat
