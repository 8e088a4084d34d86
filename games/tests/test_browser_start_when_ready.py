"""A first-time player's real-time kitchen made on the site's form waits for them to read: the page
opens with "Start the clock" in focus, the first order keeps its steps while they read, and Enter
starts the clock and moves the focus to their first action (Debian's chromium, keys only).

The page's script arrives late here, as on a busy machine: autofocus has put the focus on Start
before the script listens, and the socket's first redraw replaces that Start; the new one must take
the focus (it stayed on the page, and two CI runs failed on it)."""

from __future__ import annotations

import json
import time

import pytest

from games.tests.browser_helpers import PASSWORD, chromium, new_page, sign_in, start_custom_game

pytestmark = [pytest.mark.browser]

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games.importers import bundled_kitchen
bundled_kitchen.load(log=lambda line: None)
rita = get_user_model().objects.create_user("rita", password="{PASSWORD}")
grant(rita, Role.RESEARCHER)
print(0)
"""

LOG = """
import json
from games.models import Game, GameEvent
game = Game.objects.get()
kinds = list(GameEvent.objects.filter(game=game, category="control").order_by("seq").values_list("kind", "data"))
print(json.dumps({"id": game.pk, "paused": game.paused, "control": kinds}))
"""

# counts the socket's redraws, so the test looks at the focus after the first one
FRAMES = """
window.framesDrawn = 0;
document.addEventListener("htmx:wsAfterMessage", function () { window.framesDrawn += 1; });
"""


def _late(route) -> None:
    """game.js, after the page has been drawn (and autofocus applied)."""
    time.sleep(0.8)
    route.continue_()


def test_the_clock_waits_until_the_player_presses_start(tmp_path, shots):
    from playwright.sync_api import expect

    stack, _ = start_custom_game(tmp_path, SETUP)
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            page.add_init_script(FRAMES)
            page.route("**/js/game.js", _late)
            sign_in(page, stack.base, username="rita")
            page.goto(f"{stack.base}/games/new/?scenario=bundled/warm-up")
            page.get_by_role("button", name="Start the game").click()
            page.wait_for_url("**/games/*/")
            page.wait_for_function("() => window.framesDrawn > 0")  # the redraw on connecting
            start = page.get_by_role("button", name="Start the clock")
            expect(start).to_be_focused()
            gate = page.locator(".ready-gate").inner_text()
            order = page.locator("#game-board .ticket").first
            left_before = order.inner_text()
            actions_while_reading = page.locator("#game-actions button.action").count()
            page.wait_for_timeout(4000)  # two kitchen steps at the default pace, spent reading
            page.screenshot(path=str(shots / "start-when-ready-kitchen.png"), full_page=True)
            clock_after_reading = page.locator("[data-clock-value]").inner_text()
            left_after_reading = order.inner_text()
            page.keyboard.press("Tab")  # on to the page, not to the researcher's Stop beside Start
            after_start = page.evaluate("() => document.activeElement.textContent.trim()")
            page.keyboard.press("Shift+Tab")
            expect(start).to_be_focused()
            # a message to the team before starting: the redraw its update brings left the focus in
            # the box (a redrawn Start took it by autofocus: the rest of the words went to the page
            # and Enter started the clock)
            page.keyboard.press("c")
            page.keyboard.type("hello cooks")
            page.keyboard.press("Enter")
            expect(page.locator("#game-log-list")).to_contain_text("hello cooks")
            page.keyboard.type("and")
            chat_focus = page.evaluate("() => [document.activeElement.id, document.activeElement.value]")
            start.focus()
            status_width = page.locator("#game-status").bounding_box()["width"]
            page.keyboard.press("Enter")
            expect(page.locator(".ready-gate")).to_have_count(0)
            expect(page.locator("[data-clock-value]")).not_to_have_text("0", timeout=10_000)
            focused = page.evaluate("() => document.activeElement.dataset.action || ''")
            width_running = page.locator("#game-status").bounding_box()["width"]
            stored = json.loads(stack.python(LOG).strip().splitlines()[-1])
    finally:
        stack.close()
    assert not errors, errors
    assert "read the orders, the floor plan and the recipe book" in gate
    assert actions_while_reading >= 2  # what they will be able to do is there to read
    assert clock_after_reading == "0" and left_after_reading == left_before and "14 steps left" in left_before
    assert focused.startswith("goto "), focused  # on to the first action, not lost to the page
    assert chat_focus == ["chat-text", "and"], chat_focus
    assert after_start != "Stop", after_start
    assert width_running == status_width  # the status bar keeps its width as the gate goes
    assert not stored["paused"]
    assert [kind for kind, _ in stored["control"]] == ["created", "paused", "resumed"]
    assert stored["control"][1][1]["reason"] == "ready"
    assert stored["control"][2][1] == {"message": "the clock starts", "by": "rita"}
