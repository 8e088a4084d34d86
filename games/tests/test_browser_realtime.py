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

import json
import os
import re
import time
from pathlib import Path

import pytest

from games.tests.server import ROOT, Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "pw-participant-1"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from importlib import import_module
import_module("games.importers.bundled_{domain}").load(log=lambda line: None)
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
game = services.create_game("{slug}", [{{"kind": "human", "user": player}}], clock="real_time", options={options})
print(game.pk, game.speed)
"""

RESULT = """
import json
from games.models import Game
game = Game.objects.get(pk={game})
print(json.dumps({{"status": game.status, "result": game.result, "outcome": game.outcome}}))
"""


@pytest.fixture
def shots() -> Path:
    folder = Path(os.environ.get("ARENA_SCREENSHOTS", ROOT / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start(tmp_path: Path, domain: str, slug: str, options: dict | None = None) -> tuple[Stack, int, float]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's chromium is not at {CHROMIUM} (apt-get install chromium)")
    stack = Stack(tmp_path)
    stack.manage("migrate", "--noinput", "-v0")
    stack.start()  # first: a real-time game's clock runs from its creation
    code = SETUP.format(domain=domain, password=PASSWORD, slug=slug, options=repr(options or {}))
    game_id, speed = stack.python(code).strip().splitlines()[-1].split()
    return stack, int(game_id), float(speed)


def sign_in(page, base: str, game_id: int) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "player")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{base}/games/{game_id}/")
    page.wait_for_function("() => window.htmx && document.querySelector('[ws-connect]')")


def stored(stack: Stack, game_id: int) -> dict:
    return json.loads(stack.python(RESULT.format(game=game_id)).strip().splitlines()[-1])


def shown_facts(page) -> dict[str, str]:
    """The result panel's rows, name -> value (without the explanation)."""
    facts = {}
    for row in page.locator("#game-result dl.facts dt").all():
        value = row.locator("xpath=following-sibling::dd[1]").evaluate(
            "dd => Array.from(dd.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim()"
        )
        facts[row.inner_text().strip()] = value
    return facts


def press_or_click(page, button) -> None:
    """A numbered button by its key, any other by a click (both are what a player does)."""
    key = button.get_attribute("data-key")
    if key:
        page.keyboard.press(key)
    else:
        button.click()


def test_tasks_in_real_time_with_keys_to_the_end(tmp_path, shots):
    from playwright.sync_api import expect, sync_playwright

    stack, game_id, speed = start(tmp_path, "tasks", "bundled/make-tea")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            sign_in(page, stack.base, game_id)
            deadline = time.monotonic() + 240
            shot = False
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
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
            browser.close()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert saved["status"] == "finished"
    assert facts["Progress"] == f"{saved['result']['progress']:g}"
    assert header == f"{saved['result']['progress']:.0f}%"
    assert "chat is closed" in chat_closed
    assert speed > 0


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
    from playwright.sync_api import expect, sync_playwright

    stack, game_id, speed = start(tmp_path, "kitchen", "bundled/warm-up", {"max_steps": 16})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .place").first).to_be_visible()
            deadline = time.monotonic() + 16 / speed + 60
            step_seen = -1
            shot = False
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
                    press_or_click(page, page.locator(f"#game-actions button.action[data-action='{what}']"))
                else:
                    page.keyboard.press("w")
                if not shot:
                    shot = True
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(shots / "realtime-kitchen-1366.png"), full_page=True)
                    page.set_viewport_size({"width": 768, "height": 1024})
                    page.screenshot(path=str(shots / "realtime-kitchen-768.png"), full_page=True)
                    page.set_viewport_size({"width": 1366, "height": 900})
            expect(page.locator("#game-result h2")).to_be_visible()
            page.screenshot(path=str(shots / "realtime-kitchen-end-1366.png"), full_page=True)
            facts = shown_facts(page)
            served = page.locator("#game-status .headline-text").inner_text()
            header = page.locator("#game-status .headline-value").inner_text()
            lines = page.locator("#game-log-list li").all_inner_texts()
            browser.close()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    result = saved["result"]
    assert saved["status"] == "finished" and result["steps"] == 16
    assert facts["Completed"] == str(result["completed"])
    assert facts["Failed"] == str(result["failed"])
    assert facts["Success rate"] == f"{100 * result['success_rate']:.0f} %"
    assert header == f"{100 * result['success_rate']:.0f}%"
    assert served.startswith(f"{result['completed']} served")
    assert not any(re.search(r"\bagent\d|storage0|chopboard0", line) for line in lines), lines
    assert result["agents"][0]["accepted"] >= 8, "the player's commands ran"


def test_stop_works_after_the_status_was_redrawn_live(tmp_path):
    """The Stop form comes back in every live update of the status (no request, no CSRF token in
    the fragment); it must still stop the game, not answer 403."""
    from playwright.sync_api import expect, sync_playwright

    stack, game_id, _ = start(tmp_path, "tasks", "bundled/make-tea")
    try:
        stack.python(
            "from accounts.roles import Role, grant\n"
            "from django.contrib.auth import get_user_model\n"
            "grant(get_user_model().objects.get(username='player'), Role.RESEARCHER)\n"
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
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
            browser.close()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert saved["status"] == "finished" and "stopped" in saved["outcome"]
