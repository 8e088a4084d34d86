"""A first-time player plays a bundled scenario in real time at the default speed, in Debian's
chromium, with clicks and keys only (never a typed action), to the end; the outcome the page shows
must be the stored result. Screenshots at 1366 and 768 px go to ``screenshots/`` (or
ARENA_SCREENSHOTS).

Tasks: "Make tea" alone, pressing the first numbered action whenever one is offered.
Kitchen: the warm-up level alone, shortened to 16 steps (its ``max_steps`` option) so the test
stays short; the player reads the board (what they hold, the order tickets) and picks places on
the floor plan and commands in the action list.
"""

from __future__ import annotations

import re
import time

import pytest

from games.tests.browser_helpers import both_widths, chromium, new_page, press, shown_facts, sign_in, start_game, stored

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_tasks_in_real_time_with_keys_to_the_end(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "tasks", "bundled/make-tea")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            deadline = time.monotonic() + 240
            shot = False
            lefts: list[str] = []
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                lefts += page.eval_on_selector_all("[data-run-left]", "els => els.map(e => e.textContent.trim())")
                first = page.locator("#game-actions [data-key='1']")
                if first.count():
                    page.keyboard.press("1")
                    if not shot:
                        page.wait_for_timeout(300)
                        page.screenshot(path=str(shots / "realtime-tasks-1366.png"), full_page=True)
                        shot = True
                page.wait_for_timeout(250)
            expect(page.locator("#game-result h2")).to_be_visible()
            page.screenshot(path=str(shots / "realtime-tasks-end-1366.png"), full_page=True)
            page.set_viewport_size({"width": 768, "height": 1024})
            page.screenshot(path=str(shots / "realtime-tasks-end-768.png"), full_page=True)
            facts = shown_facts(page)
            header = page.locator("#game-status .headline-value").inner_text()
            chat_closed = page.locator("#game-chat").inner_text()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert saved["status"] == "finished"
    assert facts["Progress (%)"] == f"{saved['result']['progress']:g}"
    assert header == f"{saved['result']['progress']:.0f}%"
    assert "chat is closed" in chat_closed
    assert speed > 0
    # what is left of a running action reads as the header's clock does, to a tenth of a minute (a
    # rounded-up "2 min left" beside "t = 2.7" of an action ending at 4 read wrong)
    assert lefts and all(re.fullmatch(r"\d\.\d min left", left) for left in lefts), sorted(set(lefts))


def kitchen_decision(page) -> tuple[str, str | None]:
    """What a player who read the recipe book does now: ("place", name) to pick a place on the
    floor plan, ("command", raw) for a command in the action list, or ("wait", None)."""
    actions = page.eval_on_selector_all("#game-actions button.action", "bs => bs.map(b => b.dataset.action)")
    me = page.locator("#game-board .kitchen-agents li.agent-0").inner_text()
    held = re.search(r"holding (.+?)(?: ·|$)", me)
    holding = held.group(1).strip() if held else None
    tickets = page.eval_on_selector_all("#game-board .ticket strong", "ts => ts.map(t => t.textContent.trim())")

    def have(command: str) -> bool:
        return command in actions

    if holding and holding in tickets:
        return ("command", "put servingtable0") if have("put servingtable0") else ("place", "servingtable0")
    if holding:
        if have("put chopboard0"):
            return "command", "put chopboard0"
        return ("place", "chopboard0") if have("goto chopboard0") else ("command", "put storage0")
    if have("activate chopboard0"):
        return "command", "activate chopboard0"
    if have("get chopboard0"):
        return "command", "get chopboard0"
    takes = [a for a in actions if a.startswith("get storage0 ")]
    if takes:
        return "command", takes[0]
    if have("goto storage0"):
        return "place", "storage0"
    return "wait", None


def test_kitchen_in_real_time_with_clicks_and_keys_to_the_end(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "kitchen", "bundled/warm-up", {"max_steps": 16})
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .place").first).to_be_visible()
            # before any order has been served or missed there is no rate to show, only words
            opening = page.locator("#game-status .headline").inner_text()
            deadline = time.monotonic() + 16 / speed + 60
            step_seen = -1
            shot = False
            put_labels: list[str] = []
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                title = page.locator("#orders-title small").inner_text()
                step = int(re.search(r"step (\d+)", title).group(1))
                if step == step_seen or page.locator("#game-actions button.action").count() == 0:
                    page.wait_for_timeout(150)
                    continue
                step_seen = step
                kind, what = kitchen_decision(page)
                if kind == "place":
                    # pick the place on the floor plan: its command gets the focus, Enter does it
                    page.click(f"#game-board [data-pick-place='{what}']")
                    picked_focus = page.evaluate("() => document.activeElement.dataset.action")
                    assert picked_focus == f"goto {what}", picked_focus
                    page.keyboard.press("Enter")
                elif kind == "command" and page.locator(f"#game-actions button.action[data-action='{what}']").count():
                    button = page.locator(f"#game-actions button.action[data-action='{what}']")
                    if what in ("put chopboard0", "get chopboard0"):
                        put_labels.append(button.inner_text())
                    press(page, button)
                else:
                    page.keyboard.press("w")
                if not shot:
                    shot = True
                    page.wait_for_timeout(400)
                    both_widths(page, shots / "realtime-kitchen")
            expect(page.locator("#game-result h2")).to_be_visible()
            page.screenshot(path=str(shots / "realtime-kitchen-end-1366.png"), full_page=True)
            facts = shown_facts(page)
            served = page.locator("#game-status .headline-text").inner_text()
            header = page.locator("#game-status .headline-value").inner_text()
            lines = page.locator("#game-log-list li").all_inner_texts()
            good_news = page.locator("#game-log-list .log-part.ok").all_inner_texts()
            hints_after = page.locator("#game-board .kitchen-hint").count()  # "serve it" once closed
            verbs = page.locator("#game-timeline .tl-bar .tl-short:visible").all_inner_texts()
            green = page.locator("#game-log-list li .log-message").evaluate_all(
                "els => els.filter(e => getComputedStyle(e).color === getComputedStyle("
                "document.querySelector('.log-part.ok') || document.body).color).length"
            )
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    result = saved["result"]
    assert opening == "no order finished yet"
    assert saved["status"] == "finished" and result["steps"] == 16
    assert facts["Completed"] == str(result["completed"])
    assert facts["Failed"] == str(result["failed"])
    assert facts["Success rate"] == f"{100 * result['success_rate']:.0f} %"
    assert header == f"{100 * result['success_rate']:.0f}%"
    assert served.startswith(f"{result['completed']} served")
    assert not any(re.search(r"\bagent\d|storage0|chopboard0", line) for line in lines), lines
    # a serve is the log's good news, in its colour; the lines of walking and taking are not
    assert result["completed"] >= 1 and len(good_news) == result["completed"], good_news
    assert all(re.fullmatch(r"You served [\w ]+ \(order #\d+ done\)", part) for part in good_news), good_news
    assert green == 0, "a whole step's line is in the serve's colour"
    assert hints_after == 0
    # one-step bars read their verbs ("Walk", "Take"), not "W…", "Ta…"
    assert "Walk" in verbs and set(verbs) <= {"Walk", "Take", "Put", "Start", "Serve", "Throw", "Wait"}, verbs
    assert result["agents"][0]["accepted"] >= 8, "the player's commands ran"
    # the buttons name what the player holds and what the board has made ("Put the tomato into
    # Chopping board", "Take the tomato wedges from Chopping board", not "Put it", "Take from")
    named = [
        label for label in put_labels if re.search(r"(Put the \w[\w ]* into|Take the \w[\w ]* from) Chopping", label)
    ]
    assert put_labels and named == put_labels, put_labels


def test_stop_works_after_the_status_was_redrawn_live(tmp_path):
    """The Stop form comes back in every live update of the status (no request, no CSRF token in
    the fragment); it must still stop the game, not answer 403."""
    from playwright.sync_api import expect

    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea")
    try:
        stack.python(
            "from accounts.roles import Role, grant\n"
            "from django.contrib.auth import get_user_model\n"
            "grant(get_user_model().objects.get(username='player'), Role.RESEARCHER)\n"
        )
        with chromium() as browser:
            page, _ = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-status button", has_text="Pause")).to_be_visible()
            page.keyboard.press("p")  # pause: the status comes back over the websocket
            expect(page.locator("#game-status button", has_text="Resume")).to_be_visible()
            page.keyboard.press("p")
            expect(page.locator("#game-status button", has_text="Pause")).to_be_visible()
            page.on("dialog", lambda dialog: dialog.accept())
            page.click("#game-status button.danger")
            expect(page.locator("#game-result h2")).to_be_visible()
            assert "403" not in page.content()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert saved["status"] == "finished" and "stopped" in saved["outcome"]
