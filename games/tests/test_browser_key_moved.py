"""A number key names a place in the list of actions, and the list changes under a player who is
about to press it: a playtester's "1", meant for an action a teammate had just taken, did "wait until
something finishes". A key whose action changed in the last moment, not in answer to the player's own
action, does nothing the first time and says what it does now; pressed again, it does that. Debian's
chromium, keys only; the teammate's redraw is a frame sent to the page as the server sends them."""

from __future__ import annotations

import json
import re

import pytest

from games.tests.browser_helpers import chromium, new_page, sign_in, start_game

pytestmark = [pytest.mark.browser]

# the page's own actions panel with the first two keyed buttons' places swapped, as a redraw after
# a teammate's action could order them
SWAPPED = """() => {
  const panel = document.getElementById("game-actions").cloneNode(true);
  const [one, two] = [panel.querySelector('[data-key="1"]'), panel.querySelector('[data-key="2"]')];
  for (const [b, key] of [[one, "2"], [two, "1"]]) {
    b.setAttribute("data-key", key); b.setAttribute("aria-keyshortcuts", key); b.querySelector("kbd").textContent = key;
  }
  one.parentNode.insertBefore(two, one);
  panel.setAttribute("hx-swap-oob", "true");
  return [panel.outerHTML, one.dataset.action, two.dataset.action];
}"""

# the panel without key 2's button, and as it is (a redraw while busy, then the one after it)
WITHOUT_TWO = """() => {
  const panel = document.getElementById("game-actions").cloneNode(true);
  panel.setAttribute("hx-swap-oob", "true");
  const whole = panel.outerHTML;
  panel.querySelector('[data-key="2"]').remove();
  return [panel.outerHTML, whole];
}"""


def relay(page, sockets: list, sent: list[dict]) -> None:
    """Pass the page's game websocket through, keeping each socket (to send the page a frame as the
    server would) and each frame the page sends."""

    def through(ws) -> None:
        server = ws.connect_to_server()

        def to_server(message) -> None:
            sent.append(json.loads(message))
            server.send(message)

        ws.on_message(to_server)
        sockets.append(ws)

    page.route_web_socket(re.compile(r".*/ws/games/.*"), through)


def test_a_key_whose_action_just_changed_says_so_and_acts_when_pressed_again(tmp_path, shots):
    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea", clock="lockstep")
    sockets: list = []
    sent: list[dict] = []
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            relay(page, sockets, sent)
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions [data-key='2']").wait_for()
            page.wait_for_timeout(500)
            panel, first, second = page.evaluate(SWAPPED)
            sockets[-1].send(panel)  # a teammate's redraw: 1 is now what 2 was
            page.locator(f"#game-actions [data-key='1'][data-action='{second}']").wait_for()
            page.keyboard.press("1")
            feedback = page.locator("#game-feedback")
            feedback.filter(has_text="just changed").wait_for()
            asked = " ".join(feedback.inner_text().split())
            page.locator("#game-actions").screenshot(path=str(shots / "key-moved-1366.png"))
            acts_after_first = [m for m in sent if m.get("type") == "act"]
            page.keyboard.press("1")  # read, and meant
            page.wait_for_function("n => document.querySelectorAll('#game-log-list .log-entry').length >= n", arg=1)
            page.wait_for_timeout(300)
            acts_after_second = [m for m in sent if m.get("type") == "act"]
            # the answer to the player's own action redraws the keys: the next key acts at once
            page.locator("#game-actions [data-key='1']").wait_for()
            page.keyboard.press("1")
            page.wait_for_timeout(800)
            acts_after_third = [m for m in sent if m.get("type") == "act"]
            # a key that had no action a moment ago has no meaning to protect: it acts at once
            page.wait_for_timeout(1000)  # past the answer to the player's own action
            without_two, whole = page.evaluate(WITHOUT_TWO)
            sockets[-1].send(without_two)
            page.locator("#game-actions [data-key='2']").wait_for(state="detached")
            sockets[-1].send(whole)
            page.locator("#game-actions [data-key='2']").wait_for()
            page.keyboard.press("2")
            page.wait_for_timeout(800)
            acts_after_fourth = [m for m in sent if m.get("type") == "act"]
    finally:
        stack.close()
    assert not errors, errors
    assert acts_after_first == [], acts_after_first  # the first press did nothing
    assert asked.startswith(f"The actions just changed: 1 is now \u201c{second.replace('_', ' ')}"), asked
    assert [m["action"] for m in acts_after_second] == [second], acts_after_second
    assert len(acts_after_third) == 2, acts_after_third
    assert len(acts_after_fourth) == 3, acts_after_fourth
    assert first != second


def test_a_click_on_a_button_whose_action_just_changed_says_so_and_acts_when_clicked_again(tmp_path, shots):
    """The same for a pointer: a playtester aimed at "Start Omelette step 0", a teammate's action
    took a row out of the list above it, and the click started step 1."""
    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea", clock="lockstep")
    sockets: list = []
    sent: list[dict] = []
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            relay(page, sockets, sent)
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions [data-key='2']").wait_for()
            page.wait_for_timeout(500)
            panel, first, second = page.evaluate(SWAPPED)
            sockets[-1].send(panel)  # a teammate's redraw: the first row is now what the second was
            top = page.locator(f"#game-actions button.action[data-key='1'][data-action='{second}']")
            top.wait_for()
            top.click()
            feedback = page.locator("#game-feedback")
            feedback.filter(has_text="just changed").wait_for()
            said = " ".join(feedback.inner_text().split())
            page.locator("#game-actions").screenshot(path=str(shots / "click-moved-1366.png"))
            acts_after_first = [m for m in sent if m.get("type") == "act"]
            top.click()  # read, and meant
            page.wait_for_function("n => document.querySelectorAll('#game-log-list .log-entry').length >= n", arg=1)
            page.wait_for_timeout(300)
            acts_after_second = [m for m in sent if m.get("type") == "act"]
            # the answer to the player's own click redraws the list: the next click acts at once
            page.locator("#game-actions button.action[data-key='1']").click()
            page.wait_for_timeout(800)
            acts_after_third = [m for m in sent if m.get("type") == "act"]
    finally:
        stack.close()
    assert not errors, errors
    assert acts_after_first == [], acts_after_first  # the first click did nothing
    assert said.startswith(f"The actions just changed: this button is now \u201c{second.replace('_', ' ')}"), said
    assert [m["action"] for m in acts_after_second] == [second], acts_after_second
    assert len(acts_after_third) == 2, acts_after_third
    assert first != second
