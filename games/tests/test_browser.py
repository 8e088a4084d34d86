"""A person plays a short tasks game in a real browser (Debian's chromium through Playwright):
keyboard shortcuts, live updates over the websocket, the result, then the replay. Screenshots of the
board and of the replay go to ``screenshots/`` (or ARENA_SCREENSHOTS)."""

from __future__ import annotations

import os
import re

import pytest

from games.tests.browser_helpers import PASSWORD, chromium, last_seq, need_chromium, new_page, sign_in
from games.tests.server import Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.importers import bundled_tasks
bundled_tasks.load(log=lambda line: None)
player = get_user_model().objects.create_user("player", password="{PASSWORD}")
grant(player, Role.PARTICIPANT)
game = services.create_game("bundled/make-tea", [{{"kind": "human", "user": player}}], clock="lockstep")
print(game.pk)
"""


@pytest.mark.parametrize(
    "workers",
    [
        pytest.param(None, id="make-run"),  # one Daphne process, the embedded default
        pytest.param(2, id="make-serve", marks=pytest.mark.services),  # uvicorn workers, Postgres + Redis
    ],
)
def test_a_participant_plays_a_tasks_game_in_the_browser(tmp_path, shots, workers):
    need_chromium()
    if workers and not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")):
        pytest.skip("several workers need Postgres and Redis (the services pass sets them)")
    suffix = "-serve" if workers else ""
    from playwright.sync_api import expect

    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        game_id = int(stack.python(SETUP).strip().splitlines()[-1])
        stack.start(workers=workers)
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base)
            page.goto(f"{stack.base}/games/{game_id}/")
            expect(page.locator("#game-actions [data-key='1']")).to_be_visible()
            page.wait_for_function("() => window.htmx && document.querySelector('[ws-connect]')")
            page.wait_for_timeout(500)  # the socket's first full update

            moves = 0
            while not page.locator("#game-result h2").is_visible() and moves < 40:
                before = last_seq(page)
                key = "1" if page.locator("#game-actions [data-key='1']").count() else "w"
                page.keyboard.press(key)
                page.wait_for_function(
                    f"() => {{ const items = document.querySelectorAll('#game-log-list [data-seq]');"
                    f" return items.length && Number(items[items.length - 1].dataset.seq) > {before}; }}",
                    timeout=20_000,
                )
                moves += 1
                if moves == 4:
                    page.screenshot(path=str(shots / f"play-board{suffix}.png"), full_page=True)
            expect(page.locator("#game-result")).to_contain_text("Progress")
            expect(page.locator("#game-status")).to_contain_text("finished")
            assert re.search(r"Progress \(%\)\s*100", page.locator("#game-result").inner_text())

            page.click("text=Watch the replay")
            expect(page.locator("h1")).to_contain_text("Replay")
            expect(page.locator("#replay-board")).to_be_visible()
            page.screenshot(path=str(shots / f"play-replay{suffix}.png"), full_page=True)

            page.set_viewport_size({"width": 820, "height": 1180})  # a tablet, portrait
            page.goto(f"{stack.base}/games/{game_id}/")
            expect(page.locator("#game-result")).to_be_visible()
            page.screenshot(path=str(shots / f"play-tablet{suffix}.png"), full_page=True)
        assert not errors, errors
    finally:
        stack.close()
