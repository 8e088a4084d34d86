"""play_at_pace: the paced seat decides only every ``think`` seconds; teammates at once."""

from __future__ import annotations

from games.domains.recipes.rules import RULES
from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen
from games.engine.episode import play
from games.engine.pace import play_at_pace
from games.planners.recipes_npc import npc_policy


def test_a_paced_cook_acts_on_the_two_second_grid_and_finishes_later_than_a_program():
    definition = kitchen(BAKE, SOUP)
    options = {"time_constraints": False}
    fast = play(RULES, definition, {0: npc_policy}, options=options)
    run = play_at_pace(RULES, definition, {0: npc_policy}, paced={0}, speed=30, think=2.0, options=options)
    assert run.state.status == "success"
    starts = sorted({chunk.start for chunk in run.state.chunks})
    assert all(start % 60 == 0 for start in starts), starts  # 2 s x 30 game seconds per second
    assert run.state.time > fast.state.time
    assert run.real_seconds * 30 >= run.state.time


def test_teammates_act_at_once_while_the_paced_seat_waits_for_its_turn():
    definition = kitchen(BAKE, SOUP)
    options = {"time_constraints": False}
    run = play_at_pace(RULES, definition, {0: npc_policy, 1: npc_policy}, paced={0}, speed=30, options=options)
    assert run.state.status == "success"
    first = min(run.state.chunks, key=lambda c: c.start)
    assert first.agent == 1 and first.start == 0  # the NPC starts before the person's first decision
