"""Two people share a real-time game made to start when ready (as a study's lobby game is): each
reads the brief and presses Start, and the clock starts with the last Start. It started as the
second page loaded, while the first player was still reading (Debian's chromium, keys and clicks)."""

from __future__ import annotations

import json

import pytest

from games.tests.browser_helpers import PASSWORD, chromium, new_page, sign_in, start_custom_game

pytestmark = [pytest.mark.browser]

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.importers import bundled_tasks
bundled_tasks.load(log=lambda line: None)
people = []
for name in ("amy", "bob"):
    person = get_user_model().objects.create_user(name, password="{PASSWORD}")
    grant(person, Role.PARTICIPANT)
    people.append(person)
seats = [{{"kind": "human", "user": person}} for person in people]
game = services.create_game("bundled/make-tea", seats, clock="real_time", created_by=people[0], start_when_ready=True)
print(game.pk)
"""

STATE = """
import json
from games.models import Game
game = Game.objects.get(pk={game})
ready = list(game.events.filter(kind="ready").values_list("data", flat=True))
print(json.dumps({{"paused": game.paused, "reason": game.pause_reason, "ready": ready}}))
"""


def test_two_players_each_press_start_and_the_clock_starts_with_the_last(tmp_path, shots):
    stack, game_id = start_custom_game(tmp_path, SETUP)

    def game() -> dict:
        return json.loads(stack.python(STATE.format(game=game_id)).strip().splitlines()[-1])

    try:
        with chromium() as browser:
            amy, amy_errors = new_page(browser)  # a context of its own
            bob, bob_errors = new_page(browser)  # a context of its own
            sign_in(amy, stack.base, game_id, username="amy")
            sign_in(bob, stack.base, game_id, username="bob")
            # both here: each is asked to read, and the button has the focus
            for page in (amy, bob):
                page.locator(".ready-gate", has_text="The clock starts once you and").wait_for()
            amy.wait_for_function(
                "() => document.activeElement && document.activeElement.textContent === 'Start the clock'"
            )
            # a key before anyone pressed Start is not taken, and says so in the page's names
            amy.keyboard.press("1")
            feedback = amy.locator("#game-feedback")
            feedback.filter(has_text="press Start (S) when you have read the brief").wait_for()
            refused = " ".join(feedback.inner_text().split())
            amy.wait_for_timeout(3500)
            amy.keyboard.press("s")
            amy.locator(
                ".ready-gate", has_text="You are ready. The clock starts when Teammate 1 (bob) presses Start"
            ).wait_for()
            assert amy.locator("#game-status .badge.warn").inner_text() == "you are ready: waiting for Teammate 1 (bob)"
            bob.locator(".ready-gate", has_text="The others are ready").wait_for()
            bob.locator("#game-log-list", has_text="Teammate 1 (amy) is ready").wait_for()
            amy.locator("#game-log-list", has_text="You are ready; the clock starts when Teammate 1 (bob)").wait_for()
            # the game moved on since the refusal: its "has not yet" is gone
            feedback.filter(has_text="Not taken").wait_for(state="detached")
            amy.screenshot(path=str(shots / "shared-start-one-ready-1366.png"), full_page=True)
            waiting = game()
            bob.get_by_role("button", name="Start the clock").click()
            for page in (amy, bob):
                page.locator(".ready-gate").wait_for(state="detached")
            bob.screenshot(path=str(shots / "shared-start-running-1366.png"), full_page=True)
            running = game()
    finally:
        stack.close()
    assert waiting["paused"] and waiting["reason"] == "ready"
    assert [entry["message"] for entry in waiting["ready"]] == [
        "Player 1 is ready; the clock starts when Player 2 presses Start"
    ]
    assert not running["paused"]
    assert "Teammate 1 (bob) has not yet" in refused and "Player 2" not in refused, refused
    assert not amy_errors and not bob_errors, (amy_errors, bob_errors)
