"""The header's clock only moves forward while frames that redraw something else arrive (an LLM
teammate "deciding what to do next" every 2 s): each such frame set it back to the time of the
clock's last drawing (a playtest saw 4.0 to 4.2 and back for 45 s, then a leap to 7.2, and an action
pressed at "9.2" logged at 10). Debian's chromium; the teammate's frames are sent as the server
sends them."""

from __future__ import annotations

import re

import pytest

from games.tests.browser_helpers import chromium, new_page, sign_in, start_game

pytestmark = [pytest.mark.browser]

DECIDING = '<p id="teammates-deciding" class="teammates-deciding hint" data-agents="" hx-swap-oob="true"></p>'


def test_the_clock_does_not_go_back_when_a_frame_redraws_something_else(tmp_path):
    stack, game_id, speed = start_game(tmp_path, "tasks", "bundled/make-tea")
    sockets: list = []
    try:
        with chromium() as browser:
            page, errors = new_page(browser)

            def relay(ws) -> None:
                ws.connect_to_server()  # both ways as they are; the test adds frames of its own
                sockets.append(ws)

            page.route_web_socket(re.compile(r".*/ws/games/.*"), relay)
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions button.action").first.wait_for()
            readings = []
            for _ in range(6):  # the teammate's "deciding" frames, a second apart; nothing else happens
                page.wait_for_timeout(1000)
                sockets[-1].send(DECIDING)
                page.wait_for_timeout(150)
                readings.append(float(page.locator("#game-status [data-clock-value]").inner_text()))
    finally:
        stack.close()
    assert not errors, errors
    assert readings == sorted(readings), readings  # never back
    assert readings[-1] - readings[0] >= 4 * speed * 0.9, (readings, speed)  # and it ran on meanwhile
