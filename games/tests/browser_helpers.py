"""What the browser tests share: Debian's chromium driven by Playwright (never a downloaded
browser), a live server (``games.tests.server.Stack``) with a player and a game, signing in,
pressing a button as a player does (its key, else a click), and reading the result panel and the
stored result. Screenshots go to ``screenshots/`` (or ARENA_SCREENSHOTS).

The ``shots`` fixture (the screenshot folder) and the ``browser`` fixture (for tests on Django's
live server) live in the root conftest.py and use the names here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from games.tests.server import ROOT, Stack

CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
PASSWORD = "pw-participant-1"
DESKTOP = {"width": 1366, "height": 900}
TABLET = {"width": 768, "height": 1024}

_SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from importlib import import_module
import_module("games.importers.bundled_{domain}").load(log=lambda line: None)
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
game = services.create_game("{slug}", [{{"kind": "human", "user": player}}], clock="{clock}", options={options})
print(game.pk, game.speed)
"""

_TEAMMATE_SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.scenarios import save_scenario
save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition={definition!r})
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
seats = [{{"kind": "human", "user": player}}, {{"kind": "npc", "dispatcher": "{dispatcher}"}}]
game = services.create_game("test/rice", seats, clock="real_time", speed={speed!r})
# the teammate's first turn runs in a background thread of this short-lived process: let it finish
import threading
for thread in threading.enumerate():
    if thread is not threading.current_thread():
        thread.join(30)
print(game.pk)
"""

_RESULT = """
import json
from games.models import Game
game = Game.objects.get(pk={game})
seats = [s.dispatcher or s.kind for s in game.seats.order_by("agent")]
print(json.dumps({{"status": game.status, "result": game.result, "outcome": game.outcome, "seats": seats}}))
"""


def screenshots_dir() -> Path:
    folder = Path(os.environ.get("ARENA_SCREENSHOTS", ROOT / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def need_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not at {CHROMIUM} (apt-get install chromium)")


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium for one test (skips the test when it is not installed)."""
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, viewport: dict[str, int] | None = None) -> tuple[Any, list[str]]:
    """A page and the list its script errors go to (a test asserts it stays empty)."""
    page = browser.new_page(viewport=viewport or DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def start_game(
    tmp_path: Path, domain: str, slug: str, options: dict | None = None, *, clock: str = "real_time"
) -> tuple[Stack, int, float]:
    """A live server with the domain's bundled scenarios and a player "player" in a new game of
    ``slug``; returns the stack, the game's id and its speed. The server starts first: a real-time
    game's clock runs from its creation."""
    need_chromium()
    stack = Stack(tmp_path)
    stack.manage("migrate", "--noinput", "-v0")
    stack.start()
    code = _SETUP.format(domain=domain, password=PASSWORD, slug=slug, options=repr(options or {}), clock=clock)
    game_id, speed = stack.python(code).strip().splitlines()[-1].split()
    return stack, int(game_id), float(speed)


def start_custom_game(tmp_path: Path, setup: str) -> tuple[Stack, int]:
    """A live server and the game the Python ``setup`` creates in it (for a test's own scenario and
    seats; it prints the game's id last). The server is stopped again if the setup fails."""
    need_chromium()
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        stack.start()
        return stack, int(stack.python(setup).strip().splitlines()[-1])
    except BaseException:
        stack.close()
        raise


def teammate_setup(dispatcher: str, speed: float | None = None) -> str:
    """Setup code (for ``start_custom_game``) of a real-time tasks game, "Rice", of the player
    "player" beside an NPC of ``dispatcher``, after the NPC's first turn; it prints the game's id."""
    from games.domains.tasks.tests.helpers import RICE

    return _TEAMMATE_SETUP.format(definition=RICE, password=PASSWORD, dispatcher=dispatcher, speed=speed)


def sign_in(
    page: Any, base: str, game_id: int | None = None, *, username: str = "player", password: str = PASSWORD
) -> None:
    """Sign in through the login form; with ``game_id``, open the game and wait for its socket."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    if game_id is not None:
        page.goto(f"{base}/games/{game_id}/")
        page.wait_for_function("() => window.htmx && document.querySelector('[ws-connect]')")


def htmx_ready(page: Any) -> None:
    """Wait until the page's deferred scripts have run and htmx has bound its triggers: a page's
    heading shows before that, and text typed in that moment fires no request (a busy machine
    made the studio's check miss the whole edit)."""
    page.wait_for_function("() => window.htmx && document.readyState === 'complete'")


def press(page: Any, button: Any) -> None:
    """A button with a key by its key, any other by a click (both are what a player does)."""
    key = button.get_attribute("data-key")
    if key:
        # a player reads a number whose action has just changed before pressing it (pressed at
        # once, the page says what it does now and does nothing)
        fresh = "k => !document.querySelector(`#game-actions [data-key='${k}'][data-key-fresh]`)"
        page.wait_for_function(fresh, arg=key)
        page.keyboard.press(key)
    else:
        button.click()


def press_until_over(page: Any, *, moves: int = 60, pause_ms: int = 300) -> int:
    """Play a lockstep game as a first-time player might: key 1 (the first action offered) while
    there is one, else w (wait), until the result shows or ``moves`` keys are pressed; the number
    pressed."""
    pressed = 0
    while not page.locator("#game-result h2").is_visible() and pressed < moves:
        page.keyboard.press("1" if page.locator("#game-actions [data-key='1']").count() else "w")
        page.wait_for_timeout(pause_ms)
        pressed += 1
    return pressed


def stored(stack: Stack, game_id: int) -> dict:
    """The game's status, result, outcome and seats (human, or the NPC's dispatcher) as the database holds them."""
    return json.loads(stack.python(_RESULT.format(game=game_id)).strip().splitlines()[-1])


def shown_facts(page: Any) -> dict[str, str]:
    """The result panel's rows, name -> value (without the explanation)."""
    facts = {}
    for row in page.locator("#game-result dl.facts dt").all():
        value = row.locator("xpath=following-sibling::dd[1]").evaluate(
            "dd => Array.from(dd.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim()"
        )
        facts[row.inner_text().strip()] = value
    return facts


def last_seq(page: Any) -> int:
    """The sequence number of the newest line in the game's log."""
    return page.evaluate(
        "() => { const items = document.querySelectorAll('#game-log-list [data-seq]');"
        " return items.length ? Number(items[items.length - 1].dataset.seq) : 0; }"
    )


def both_widths(page: Any, path: Path) -> None:
    """Screenshots at 1366 px (``name-1366.png``) and 768 px (``name-768.png``); the page is back
    at 1366 px afterwards."""
    page.screenshot(path=str(path.with_name(f"{path.name}-1366.png")), full_page=True)
    page.set_viewport_size(TABLET)
    page.screenshot(path=str(path.with_name(f"{path.name}-768.png")), full_page=True)
    page.set_viewport_size(DESKTOP)
