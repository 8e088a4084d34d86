"""A tasks board lists each task's actions, the ready ones as buttons. Pressed from the keyboard,
such a button became a running line and the focus fell to the page: the next Enter did nothing and
the arrow keys scrolled. The focus now stays in the list (the same task's button, else the one in its
place), else goes to the actions. Debian's chromium, keys only."""

from __future__ import annotations

import pytest

from games.tests.browser_helpers import chromium, new_page, sign_in, start_game

pytestmark = [pytest.mark.browser]

FOCUSED = """() => {
  const a = document.activeElement;
  return a ? (a.dataset.action || a.tagName) + "|" + a.className : "";
}"""
MORE_ENTRIES = "n => document.querySelectorAll('#game-log-list .log-entry').length > n"


def test_after_a_task_list_button_the_focus_stays_where_the_keys_work(tmp_path, shots):
    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea", clock="lockstep")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            page.locator(".ta-do").first.wait_for()
            for _ in range(80):  # Tab to the task list, as a keyboard user does
                page.keyboard.press("Tab")
                if "ta-do" in page.evaluate(FOCUSED):
                    break
            pressed = page.evaluate(FOCUSED).split("|")[0]
            page.keyboard.press("Enter")
            page.locator("#game-log-list .log-entry").first.wait_for()
            page.wait_for_timeout(500)
            after = page.evaluate(FOCUSED)
            page.screenshot(path=str(shots / "task-list-focus-1366.png"))
            entries = page.locator("#game-log-list .log-entry").count()
            page.keyboard.press("Enter")  # the next Enter does what the focus is on
            page.wait_for_function(MORE_ENTRIES, arg=entries)
    finally:
        stack.close()
    assert not errors, errors
    assert pressed and pressed != "BODY", pressed
    assert after.split("|")[0] not in ("BODY", ""), after
    assert "ta-do" in after or "action" in after, after
