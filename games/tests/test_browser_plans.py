"""A first-time player plays a recipes and an itinerary scenario in real time at the default speed,
in Debian's chromium, with clicks and keys only (never a typed action), to the end; the outcome
the page shows must be the stored result. Screenshots at 1366 and 768 px go to ``screenshots/``.

Recipes, "Breakfast for two": the player reads the step cards and presses the key of the first
"Start" button whenever one is offered (never a pause).
Itinerary, "A morning in Harbourton": the player reads the places list (hours, open now, minutes
still wanted) and goes to an open sight the brief still wants, visits it, or else waits.
"""

from __future__ import annotations

import re
import time
from datetime import datetime

import pytest

from games.tests.browser_helpers import chromium, new_page, press, shown_facts, sign_in, start_game, stored

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def step_text_width(page) -> float:
    """The narrowest step description on the recipes board, in CSS pixels."""
    return page.eval_on_selector_all(
        "#game-board .recipe-steps .ta-name", "els => Math.min(...els.map(e => e.getBoundingClientRect().width))"
    )


def test_recipes_in_real_time_with_keys_to_the_end(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "recipes", "bundled/Porridge_Omelette")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .recipe-steps").first).to_be_visible()
            deadline = time.monotonic() + 300
            pressed = 0
            widths: dict[int, float] = {}
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                start_button = page.locator("#game-actions button.action[data-action^='Step(']").first
                if start_button.count():
                    press(page, start_button)
                    pressed += 1
                    if pressed == 3:
                        page.wait_for_timeout(400)
                        page.screenshot(path=str(shots / "realtime-recipes-1366.png"), full_page=True)
                        widths[1366] = step_text_width(page)
                        page.set_viewport_size({"width": 768, "height": 1024})
                        page.screenshot(path=str(shots / "realtime-recipes-768.png"), full_page=True)
                        widths[768] = step_text_width(page)
                        page.set_viewport_size({"width": 1366, "height": 900})
                    page.wait_for_timeout(600)  # the update comes back; a person reads it
                page.wait_for_timeout(200)
            expect(page.locator("#game-result h2")).to_be_visible()
            page.screenshot(path=str(shots / "realtime-recipes-end-1366.png"), full_page=True)
            facts = shown_facts(page)
            outcome = page.locator("#game-result p").first.inner_text()
            feedback = page.locator("#game-feedback").inner_text()
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert saved["status"] == "finished" and pressed >= 5
    # a step's words get most of the board's width, not a third of it
    assert widths[1366] >= 450 and widths[768] >= 380, widths
    assert "could not handle" not in feedback, feedback  # the server rendered every update
    assert facts["Progress (%)"] == f"{saved['result']['progress']:g}"
    assert facts["Status"] == saved["result"]["status"]
    from games.recipes_view import people_clock

    assert people_clock(saved["outcome"])[:40].lower() in outcome.lower()  # the clock as the page writes it
    assert speed == 8  # the scenario's own pace: its 22 recipe minutes last a few real minutes


def itinerary_choice(page):
    """The button a reader of the board presses next, or None to wait for the page."""
    actions = page.locator("#game-actions button.action")
    labels = [b.get_attribute("data-action") for b in actions.all()]
    visit = next((a for a in labels if a.startswith("visit ")), None)
    if visit:
        return visit
    sights = page.eval_on_selector_all(
        "#game-board .sight",
        "ls => ls.map(l => ({name: l.querySelector('strong').textContent.trim(), open: l.classList.contains('open'),"
        " text: l.textContent}))",
    )
    for sight in sights:
        seen = re.search(r"seen (\d+) of (\d+) min", sight["text"])
        wanted = sight["open"] and seen and int(seen.group(1)) < int(seen.group(2))
        if wanted and f"go to {sight['name']}" in labels:
            return f"go to {sight['name']}"
    return next((a for a in labels if a.startswith("wait until")), None)


def test_itinerary_in_real_time_with_clicks_and_keys_to_the_end(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "itinerary", "bundled/harbourton-morning")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .sight").first).to_be_visible()
            deadline = time.monotonic() + 180
            moves = 0
            clocks: list[tuple[int, int]] = []  # (the board's minute of the day, the header's) after each move
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                choice = itinerary_choice(page)
                if choice is None:
                    page.wait_for_timeout(200)
                    continue
                before = page.locator("#game-board .verdict, #game-board .plan li").count()
                press(page, page.locator(f"#game-actions button.action[data-action='{choice}']"))
                moves += 1
                if moves == 3:
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(shots / "realtime-itinerary-1366.png"), full_page=True)
                page.wait_for_function(
                    f"() => document.querySelectorAll('#game-board .verdict, #game-board .plan li').length > {before}"
                    " || document.querySelector('#game-result h2')",
                    timeout=20_000,
                )
                if not page.locator("#game-result h2").is_visible():
                    board = board_clock(page)
                    header = datetime.strptime(page.locator("#game-status [data-clock-value]").inner_text(), "%H:%M")
                    clocks.append((board.hour * 60 + board.minute, header.hour * 60 + header.minute))  # "07:14"
            expect(page.locator("#game-result h2")).to_be_visible()
            verdict = page.locator("#game-board .verdict").inner_text()
            page.screenshot(path=str(shots / "realtime-itinerary-end-1366.png"), full_page=True)
            page.set_viewport_size({"width": 768, "height": 1024})
            page.screenshot(path=str(shots / "realtime-itinerary-end-768.png"), full_page=True)
            facts = shown_facts(page)
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert saved["status"] == "finished" and moves >= 6
    assert saved["result"]["over"] == "every goal of the brief is met"
    assert verdict == "Every goal of the brief is met."
    assert float(facts["Total"]) == round(saved["result"]["total"], 2)
    assert speed == 1
    # the header's clock is the traveller's, as the board's, both running on while the player reads
    assert clocks and all(abs(header - board) <= 1 for board, header in clocks), clocks


def board_clock(page) -> datetime:
    """The traveller's clock as the board's Clock card dates it ("2024-05-02 11:42", under its
    "11:42" or "day 2, 11:42")."""
    text = page.locator("#game-board [data-trip-clock]").first.inner_text()
    return datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
