"""A player walks a recipes game into a dead end in Debian's chromium, with clicks and keys only:
the roast's oven is preheated to 425, then the muffins' preheat sets it to 350, and once the muffins
are out nothing can heat the oven for the roast again. The game must end there, as failed, and say
why (it used to leave the player with no action and a clock that never moved).
"""

from __future__ import annotations

import time

import pytest

from games.domains.recipes.tests.kitchens import MUFFINS, ROAST
from games.tests.browser_helpers import (
    PASSWORD,
    both_widths,
    chromium,
    new_page,
    press,
    sign_in,
    start_custom_game,
    stored,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.scenarios import save_scenario
save_scenario(domain="recipes", slug="test/dead-end", title="Muffins and a roast", source="test",
              definition={definition!r})
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
game = services.create_game("test/dead-end", [{{"kind": "human", "user": player}}], clock="lockstep")
print(game.pk)
"""

# what the player starts, in this order, whenever its button is offered; otherwise they press W
PLAN = ["Step(0, Roast)", "Step(0, Muffins)", "Step(1, Muffins)"]


def test_a_dead_end_ends_the_game_and_says_why(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id = start_custom_game(
        tmp_path, SETUP.format(definition={"recipes": [MUFFINS, ROAST]}, password=PASSWORD)
    )
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .recipe-steps").first).to_be_visible()
            plan, deadline = list(PLAN), time.monotonic() + 120
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                wanted = page.locator(f"#game-actions button.action[data-action='{plan[0]}']") if plan else None
                if wanted is not None and wanted.count():
                    press(page, wanted.first)
                    plan.pop(0)
                elif page.locator("#game-actions button.action[data-key='w']").count():
                    page.keyboard.press("w")
                page.wait_for_timeout(500)  # the update comes back; a person reads it
            expect(page.locator("#game-result h2")).to_be_visible()
            both_widths(page, shots / "recipes-dead-end")
            result_text = page.locator("#game-result").inner_text()
            actions_left = page.locator("#game-actions button.action").count()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert plan == [], f"the player could not start {plan}"
    assert saved["status"] == "finished"
    assert saved["result"]["success"] is False and saved["result"]["status"] == "failed"
    assert saved["outcome"].startswith("No step left can start at 00:35:00")
    assert "No step left can start" in result_text
    assert actions_left == 0
