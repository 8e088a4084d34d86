"""A first-time player of Bake bread presses Wait minute after minute (in Debian's chromium, keys only):
the messages panel reads the run as one line that grows as it goes ("You wait 4 minutes (until
t=6)."), not a line per minute, and the replay reads the same."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from games.tests.browser_helpers import chromium, last_seq, new_page, sign_in, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _press_and_wait_for_news(page, key: str) -> None:
    """Press ``key`` and wait until the log's newest line is a newer entry than before."""
    before = last_seq(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "before => { const items = document.querySelectorAll('#game-log-list [data-seq]');"
        " return items.length && Number(items[items.length - 1].dataset.seq) > before; }",
        arg=before,
        timeout=20_000,
    )


@contextmanager
def _playing(tmp_path: Path, scenario: str) -> Iterator[tuple[Any, str, int]]:
    """A lockstep tasks game on ``scenario``, signed in: (page, the site's address, game id); the
    page made no script errors."""
    stack, game_id, _ = start_game(tmp_path, "tasks", scenario, clock="lockstep")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            yield page, stack.base, game_id
        assert not errors, errors
    finally:
        stack.close()


def test_a_run_of_waits_reads_as_one_growing_line(tmp_path, shots):
    from playwright.sync_api import expect

    with _playing(tmp_path, "bundled/bake-bread") as (page, base, game_id):
        log = page.locator("#game-log-list")
        expect(page.locator("#game-actions [data-key='1']")).to_contain_text("measure flour")
        _press_and_wait_for_news(page, "1")  # measure flour: 2 minutes
        _press_and_wait_for_news(page, "w")
        expect(log).to_contain_text("t=2 You wait one minute.")
        for minutes in (2, 3, 4):
            _press_and_wait_for_news(page, "w")
            expect(log).to_contain_text(f"t=2 You wait {minutes} minutes (until t={2 + minutes}).")
        expect(log).not_to_contain_text("wait one minute")
        _press_and_wait_for_news(page, "1")  # the next step: its line comes after the run's
        lines = log.locator("li").all_inner_texts()
        assert [" ".join(line.split()) for line in lines[-3:]] == [
            "t=2 You wait 4 minutes (until t=6).",
            "t=6 You are doing add flour to bowl, it will take 1 minute (done at t=7).",
            "t=7 You finished add flour to bowl: flour is in bowl.",
        ], lines
        page.screenshot(path=str(shots / "tasks-waits.png"), full_page=True)

        page.goto(f"{base}/games/{game_id}/replay/")
        expect(page.locator("body")).to_contain_text("You wait 4 minutes (until t=6).")
        expect(page.locator("body")).not_to_contain_text("wait one minute")


def test_a_command_typed_as_its_button_reads_is_taken(tmp_path, shots):
    # Make tea's grammar writes "add tea_leaves to teapot"; the page writes "tea leaves", and a
    # player who types what they read gets the action, not "'add tea leaves to teapot' is not an action"
    from playwright.sync_api import expect

    with _playing(tmp_path, "bundled/make-tea") as (page, _base, _game_id):
        expect(page.locator(".board-tasks .chips")).to_contain_text("tea leaves")
        expect(page.locator(".board-tasks")).not_to_contain_text("tea_leaves")
        tea = page.locator("#game-actions button.action[data-action='add tea_leaves to teapot']")
        for _ in range(8):  # the first offered action each time, until the tea can go in
            if tea.count():
                break
            _press_and_wait_for_news(page, "1")
        expect(tea).to_contain_text("add tea leaves to teapot")
        page.keyboard.press("a")  # the command box (keyboard shortcut)
        page.keyboard.type("Add tea leaves to teapot")
        _press_and_wait_for_news(page, "Enter")
        log = page.locator("#game-log-list")
        expect(log).to_contain_text("You are doing add tea leaves to teapot")
        expect(page.locator("#game-feedback")).to_be_empty()
        page.keyboard.press("a")
        page.keyboard.type("add tea leaf to teapot")  # a typo is still the rules' to refuse
        page.keyboard.press("Enter")
        expect(log.locator("li").last).to_contain_text("could not: 'add tea leaf to teapot' is not an action")
        page.screenshot(path=str(shots / "tasks-typed.png"), full_page=True)
