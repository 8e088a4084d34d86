"""The kitchen by keyboard and on a phone (Debian's chromium): the floor plan is one Tab stop whose
places the arrow keys move between (Tab crossed every place before reaching the commands), and on
a phone the orders sit above the commands (they were below the whole board); Escape puts the
shortcuts list away. A key pressed twice before the server answers sends one command."""

from __future__ import annotations

import pytest

from games.tests.browser_helpers import chromium, new_page, press, sign_in, start_game

pytestmark = [pytest.mark.browser]

ACTIONS = """
from games.models import GameEvent
print(GameEvent.objects.filter(game_id={game}, category="action").count())
"""


def test_the_floor_plan_is_one_tab_stop_and_the_orders_lead_on_a_phone(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, _ = start_game(tmp_path, "kitchen", "bundled/busy-kitchen", clock="lockstep")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            places = page.locator("#game-board [data-pick-place]")
            expect(places.first).to_be_visible()
            count = places.count()
            names = [places.nth(k).get_attribute("data-pick-place") for k in range(count)]
            # from the page, an arrow key enters the commands; End and Home go to their ends
            page.keyboard.press("ArrowDown")
            focused = "() => document.activeElement.dataset.action || document.activeElement.tagName"
            first_command = page.evaluate(focused)
            page.keyboard.press("End")
            last_command = page.evaluate(focused)
            page.keyboard.press("ArrowUp")
            above_last = page.evaluate(focused)
            shown = page.locator("#game-actions button.action:visible, #game-actions details.more-actions > summary")
            commands = [b.get_attribute("data-action") or "SUMMARY" for b in shown.all()]
            places.first.focus()
            page.keyboard.press("ArrowRight")
            second = page.evaluate("() => document.activeElement.dataset.pickPlace")
            page.keyboard.press("End")
            last = page.evaluate("() => document.activeElement.dataset.pickPlace")
            page.keyboard.press("Tab")  # out of the floor plan, not to the next place
            after_tab = page.evaluate("() => document.activeElement.dataset.pickPlace || 'left the floor plan'")
            page.keyboard.press("Shift+Tab")  # back in: the place last visited
            back = page.evaluate("() => document.activeElement.dataset.pickPlace")
            page.keyboard.press("Home")
            page.keyboard.press("Enter")  # pick it: its commands get the focus
            picked = page.evaluate("() => document.activeElement.dataset.place || ''")

            # a key pressed twice before the server answered sends one command: the second went out
            # as the old button's, named something done by then, and cost a step
            sent_before = int(stack.python(ACTIONS.format(game=game_id)).strip().splitlines()[-1])
            page.keyboard.press("1")
            page.keyboard.press("1")
            page.wait_for_timeout(1500)
            double_press = int(stack.python(ACTIONS.format(game=game_id)).strip().splitlines()[-1]) - sent_before
            page.keyboard.press("1")  # after the answer, the key works again
            page.wait_for_timeout(1500)
            then_one_more = int(stack.python(ACTIONS.format(game=game_id)).strip().splitlines()[-1]) - sent_before

            page.keyboard.press("?")  # the shortcuts, and Escape puts them away (it did nothing)
            help_shown = page.locator("#shortcuts").is_visible()
            page.keyboard.press("Escape")
            help_after_escape = page.locator("#shortcuts").is_visible()

            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(300)
            orders_y = page.locator("#orders-title").bounding_box()["y"]
            actions_y = page.locator("#actions-title").bounding_box()["y"]
            floor_y = page.locator("#floor-title").bounding_box()["y"]
            page.screenshot(path=str(shots / "kitchen-phone-orders-first.png"), full_page=True)
    finally:
        stack.close()
    assert not errors, errors
    assert count >= 6, names
    assert first_command == commands[0] and last_command == commands[-1] and above_last == commands[-2], commands
    assert second == names[1] and last == names[-1]
    assert after_tab not in names, after_tab
    assert back == names[-1]
    assert picked == names[0]
    assert orders_y < actions_y < floor_y, (orders_y, actions_y, floor_y)
    assert help_shown and not help_after_escape
    assert double_press == 1 and then_one_more == 2, (double_press, then_one_more)


def test_a_folded_group_keeps_the_focus_across_the_clocks_redraws(tmp_path):
    """On "Other ingredients" (a folded group of commands), the next step's redraw put the focus
    on "2 Take tomato": Enter would have taken a tomato instead of opening the group."""
    from playwright.sync_api import expect

    stack, game_id, _ = start_game(tmp_path, "kitchen", "bundled/warm-up")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            page.keyboard.press("s")  # start the clock: a step every 2 s, each redrawn
            to_storage = page.locator("#game-actions button.action[data-action='goto storage0']")
            if to_storage.count():
                press(page, to_storage)  # at Storage every ingredient is on offer, most folded
            summary = page.locator("#game-actions details.more-actions > summary").first
            expect(summary).to_be_visible(timeout=15_000)
            summary.focus()  # as the arrow keys bring it there
            on_summary = "() => document.activeElement.matches('#game-actions details.more-actions > summary')"
            assert page.evaluate(on_summary)
            step = page.locator("[data-clock-value]")
            first = int(step.inner_text())
            page.wait_for_function(
                "n => parseInt(document.querySelector('[data-clock-value]').textContent, 10) >= n + 2", arg=first
            )
            page.wait_for_timeout(500)  # the redraw of the step the clock reached
            still = page.evaluate(on_summary)
            now = page.evaluate("() => document.activeElement.textContent.trim().slice(0, 40)")
    finally:
        stack.close()
    assert not errors, errors
    assert still, now
