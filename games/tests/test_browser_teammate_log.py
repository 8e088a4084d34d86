"""A player and a planner teammate share a tasks game in Debian's chromium at real-time speed, keys
only. The rules write to the agent who acted ("You are doing pick rice ..."); the messages panel
shows the teammate's events after their name and must not read as if they were addressed to the
player ("Teammate 1 (planner NPC) You are doing ..." did). A long word in the chat wraps.
"""

from __future__ import annotations

import time

import pytest

from games.tests.browser_helpers import (
    both_widths,
    chromium,
    new_page,
    press,
    sign_in,
    start_custom_game,
    teammate_setup,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_teammates_events_read_in_the_third_person(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id = start_custom_game(tmp_path, teammate_setup("planner", speed=0.5))
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
            # a message of one 1,000-letter word wraps in the panel: it made the page 9,000 px wide
            page.keyboard.press("c")
            page.keyboard.insert_text("x" * 1000)
            page.keyboard.press("Enter")
            expect(page.locator("#game-log-list .log-entry.cat-chat")).to_have_count(1)
            # Escape gives the keys back to the game, as the chat's hint says: the focus goes to the
            # actions (it stayed on the page, and no action had it even once the player was free)
            page.keyboard.press("Escape")
            page.wait_for_function(
                "() => document.activeElement && document.activeElement.closest('#game-actions, .ready-gate')"
            )
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            both_widths(page, shots / "tasks-teammate-log")
            theirs = teammate.all_inner_texts()
            mine = mine.all_inner_texts()
            # on a phone, "My games" scrolls its table, not the page (the page was 1003 px wide)
            page.set_viewport_size({"width": 390, "height": 844})
            page.goto(f"{stack.base}/games/mine/")
            page.locator("table.table").wait_for()
            phone_overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    finally:
        stack.close()
    assert not errors, errors
    assert overflow <= 0, overflow
    assert phone_overflow <= 0, phone_overflow
    assert theirs and mine, (theirs, mine)
    assert not any(text.startswith("You ") or " you " in text for text in theirs), theirs
    assert any(text.startswith(("is doing ", "started ")) for text in theirs), theirs
    assert any(text.startswith("You ") for text in mine), mine  # one's own stay as the rules wrote them
