"""Keys pressed faster than the page redraws send the stale button's action again and again; each
is refused ("You are busy ..."), and the messages panel reads the run as one line with a count (a
playtester's key mash put eight such lines in the panel and pushed the game's news out of it).
Debian's chromium, keys only; the server's answers are held back until the keys have been pressed,
as a slow connection would."""

from __future__ import annotations

import re

import pytest

from games.tests.browser_helpers import chromium, new_page, sign_in, start_game

pytestmark = [pytest.mark.browser]


def test_a_refusal_said_again_and_again_reads_as_one_line_with_a_count(tmp_path, shots):
    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea")
    held: list = []
    holding = {"on": False}
    try:
        with chromium() as browser:
            page, errors = new_page(browser)

            def relay(ws) -> None:
                server = ws.connect_to_server()
                ws.on_message(server.send)  # the page's frames go out at once

                def to_page(message) -> None:
                    if holding["on"]:
                        held.append((ws, message))
                    else:
                        ws.send(message)

                server.on_message(to_page)

            page.route_web_socket(re.compile(r".*/ws/games/.*"), relay)
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions [data-action='wash teapot']").wait_for()
            holding["on"] = True
            for _ in range(4):  # the same key, the page not redrawn in between
                page.keyboard.press("2")
                page.wait_for_timeout(300)
            holding["on"] = False
            for ws, message in held:
                ws.send(message)
            refused = page.locator("#game-log-list .log-entry.kind-rejected")
            refused.locator(".log-repeats").wait_for()
            lines = [" ".join(text.split()) for text in refused.all_inner_texts()]
            page.locator("#game-log-list").screenshot(path=str(shots / "log-repeats-1366.png"))
    finally:
        stack.close()
    assert not errors, errors
    assert len(lines) == 1, lines  # three refusals in a row: one line with a count
    assert "You are busy with wash teapot" in lines[0] and lines[0].endswith("×3"), lines
