"""A player and a planner teammate share a tasks game in Debian's chromium at real-time speed, keys
only. The rules write to the agent who acted ("You are doing pick rice ..."); the messages panel
shows the teammate's events after their name and must not read as if they were addressed to the
player ("Teammate 1 (planner NPC) You are doing ..." did).
"""

from __future__ import annotations

import time

import pytest

from games.domains.tasks.tests.helpers import RICE
from games.tests.browser_helpers import PASSWORD, both_widths, chromium, new_page, press, sign_in, start_custom_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.scenarios import save_scenario
save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition={definition!r})
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
seats = [{{"kind": "human", "user": player}}, {{"kind": "npc", "dispatcher": "planner"}}]
game = services.create_game("test/rice", seats, clock="real_time", speed=0.5)
# the teammate's first turn runs in a background thread of this short-lived process: let it finish
import threading
for thread in threading.enumerate():
    if thread is not threading.current_thread():
        thread.join(30)
print(game.pk)
"""


def test_a_teammates_events_read_in_the_third_person(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id = start_custom_game(tmp_path, SETUP.format(definition=RICE, password=PASSWORD))
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            teammate = page.locator("#game-log-list .log-entry.agent-1 .log-message")
            deadline = time.monotonic() + 60
            mine = page.locator("#game-log-list .log-entry.agent-0 .log-message")
            while time.monotonic() < deadline and not (teammate.count() >= 2 and mine.count()):
                first = page.locator("#game-actions button.action[data-key='1']")
                if first.count():
                    press(page, first.first)  # the player starts whatever is first on offer
                page.wait_for_timeout(500)
            expect(teammate.first).to_be_visible()
            both_widths(page, shots / "tasks-teammate-log")
            theirs = teammate.all_inner_texts()
            mine = mine.all_inner_texts()
    finally:
        stack.close()
    assert not errors, errors
    assert theirs and mine, (theirs, mine)
    assert not any(text.startswith("You ") or " you " in text for text in theirs), theirs
    assert any(text.startswith(("is doing ", "started ")) for text in theirs), theirs
    assert any(text.startswith("You ") for text in mine), mine  # one's own stay as the rules wrote them
