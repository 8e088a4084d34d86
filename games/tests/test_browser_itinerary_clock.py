"""A real-time itinerary in Debian's chromium, keys only: what the page says about now follows the
running clock. Time passes while the player reads (a trip minute per second by default), and the
page used to stand still between two actions: the header read "t = 15.7" beside a board clock of
07:00, the timeline and score chart ended at the minute of the last action while the clock ran on,
"Go to Fish Market Hall (12 min, arrive 07:12)" arrived at 07:28, and the log read "t=16";
at the day's end the walks stayed on offer after the menu had stopped offering them; and a player
who only read was never moved on: a sight that opened stayed off the menu and the trip never ended.
"""

from __future__ import annotations

import itertools
import re

import pytest

from games.tests.browser_helpers import PASSWORD, both_widths, chromium, new_page, press, sign_in, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCENARIO = "bundled/harbourton-morning"  # 07:00, one day; Lighthouse Point opens at 08:00
HHMM = re.compile(r"^\d\d:\d\d$")

FAST_GAME = """
from django.contrib.auth import get_user_model
from games import services
player = get_user_model().objects.get(username="player")
game = services.create_game(
    "{slug}", [{{"kind": "human", "user": player}}], clock="real_time", speed=20, start_when_ready=True
)
print(game.pk)
"""


def minutes(hhmm: str) -> int:
    hours, mins = hhmm.strip().split(":")
    return int(hours) * 60 + int(mins)


def test_the_itinerary_page_follows_the_running_clock(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "itinerary", SCENARIO)
    assert speed == 1.0  # the default pace: a trip minute per second
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id, password=PASSWORD)
            header = page.locator("[data-clock-value]")
            expect(header).to_have_text(HHMM)  # the traveller's clock, not "t = 2.1"
            first = minutes(header.inner_text())
            chart_end = page.locator("#game-chart .chart-x span").last
            chart_text = chart_end.inner_text()
            drawn_until = minutes(chart_text)
            page.wait_for_timeout(4000)  # the player reads the board
            now = minutes(header.inner_text())
            assert now >= first + 3, (first, now)
            # the timeline and the score chart are drawn again as the clock runs past their end
            # (they stood at the minute of the last action: the "now" line pinned to the edge)
            page.wait_for_function(
                "n => parseFloat(document.getElementById('game-timeline').dataset.span) >= n", arg=now - 7 * 60
            )
            # (the axis leaves a few seconds of the clock ahead before it asks: not at every second)
            expect(chart_end).not_to_have_text(chart_text, timeout=15_000)
            assert minutes(chart_end.inner_text()) > drawn_until, (drawn_until, chart_end.inner_text())
            board_clock = page.locator("[data-trip-clock]").inner_text()
            now = minutes(header.inner_text())
            assert abs(minutes(board_clock[-5:]) - now) <= 1, (board_clock, now)  # the board's clock runs too
            expect(page.locator("[data-minutes-left]")).to_have_text(re.compile(r"^\d+ h \d+ min$"))  # not "1011"
            go = page.locator("#game-actions button.action[data-action='go to Fish Market Hall']")
            label = go.inner_text()
            arrive = re.search(r"\((\d+) min, arrive (\d\d:\d\d)\)", label)
            assert arrive, label
            assert abs(minutes(arrive.group(2)) - (minutes(header.inner_text()) + int(arrive.group(1)))) <= 1, label
            promised = minutes(arrive.group(2))
            press(page, go)
            expect(page.locator("#game-board [data-trip-clock]")).not_to_have_text(board_clock, timeout=10_000)
            expect(page.locator(".board-itinerary .card", has_text="Where")).to_contain_text("Fish Market Hall")
            arrived = page.locator("#game-log-list .log-entry", has_text="You went from").last
            expect(arrived).to_be_visible()
            stamp = arrived.locator(".log-time").inner_text()
            assert HHMM.match(stamp), stamp  # the log reads the clock, not "t=16"
            assert abs(minutes(stamp) - promised) <= 1, (stamp, label)  # it arrived when the button said
            both_widths(page, shots / "itinerary-clock")

            # a faster game: the 08:00 wait goes when 08:00 comes, and a sight opening at 08:00 opens
            fast = int(stack.python(FAST_GAME.format(slug=SCENARIO)).strip().splitlines()[-1])
            page.goto(f"{stack.base}/games/{fast}/")
            expect(page.locator("#game-actions button.action").first).to_be_visible()
            wait = page.locator("#game-actions button.action[data-action='wait until 08:00']")
            lighthouse = page.locator(".board-itinerary li.sight", has_text="Lighthouse Point")
            expect(wait).to_be_visible()
            expect(lighthouse).to_contain_text("closed now")
            # the clock waits for Start (at 20 trip minutes a second, 08:00 came while a busy
            # machine was still loading the page)
            page.keyboard.press("s")
            expect(wait).to_be_hidden(timeout=15_000)
            expect(lighthouse).to_contain_text("open now")
            assert minutes(header.inner_text()) >= 8 * 60
            expect(wait).to_have_count(0, timeout=5_000)  # and the menu the moment brings has no such wait
            # walk to the Maritime Museum (opens 10:00) and only read: when 10:00 comes the visit is
            # on offer (the clock moves the traveller on to it as the "wait until 10:00" would)
            press(page, page.locator("#game-actions button.action[data-action='go to Maritime Museum']"))
            expect(page.locator(".board-itinerary .card", has_text="Where")).to_contain_text("Maritime Museum")
            visit = page.locator("#game-actions button.action[data-action^='visit Maritime Museum']")
            expect(visit).to_be_hidden()
            expect(visit).to_be_visible(timeout=20_000)
            assert minutes(header.inner_text()) >= 10 * 60
            # the clock woke the reader at each sight's opening and hour: the log, as it came, reads
            # the run as one line (it used to append "until 09:00", then "until 10:00" beneath it)
            waits = page.locator("#game-log-list .log-entry", has_text="waited in Harbourton until")
            expect(waits.last).to_contain_text("until 10:00.")
            assert [" ".join(w.split()[-2:]) for w in waits.all_inner_texts()] == ["until 08:00.", "until 10:00."]
            page.screenshot(path=str(shots / "itinerary-sight-opens.png"))
            press(page, visit)
            expect(page.locator(".board-itinerary .plan")).to_contain_text("visit Maritime Museum")

            # the day's end: each walk goes when it would run into the rest hours from 22:00, the
            # clock keeps offering a wait, and at midnight the trip ends by itself (it used to stand
            # at 22:00 with nothing on offer until the player did something)
            late = int(
                stack.python(FAST_GAME.format(slug=SCENARIO).replace("speed=20", "speed=60")).strip().splitlines()[-1]
            )
            page.goto(f"{stack.base}/games/{late}/")
            walk = page.locator("#game-actions button.action[data-action='go to Fish Market Hall']")
            expect(walk).to_be_visible()
            page.keyboard.press("s")
            expect(walk).to_be_hidden(timeout=30_000)
            assert minutes(header.inner_text()) >= 21 * 60 + 48  # Fish Market Hall is 12 min away: 21:48 was the last
            expect(page.locator("#game-actions button.action.wait").first).to_be_visible(timeout=5_000)
            page.screenshot(path=str(shots / "itinerary-rest-hours.png"))
            expect(page.locator("#game-result h2")).to_be_visible(timeout=30_000)
            expect(page.locator("#game-result")).to_contain_text("end time")
            page.screenshot(path=str(shots / "itinerary-time-up.png"))
        assert not errors, errors
    finally:
        stack.close()


def test_a_trip_of_several_days_is_played_by_its_buttons(tmp_path, shots):
    """The grand tour (2 days in Stonegate, 1 in Millbrook and in Lakeside, back home, 400 CNY) at
    the default pace, by keys and clicks: tomorrow's trains say their day, and a stay the brief
    counts in days is one wait away (it took a wait of an hour or to the night's end over and over,
    and tomorrow's 07:35 train read as today's)."""
    from playwright.sync_api import expect

    stack, game_id, _speed = start_game(tmp_path, "itinerary", "bundled/grand-tour")
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id, password=PASSWORD)
            buttons = page.locator("#game-actions button.action")
            expect(buttons.first).to_be_visible()
            number = page.locator(".board-itinerary .train-number").first
            lines = number.evaluate(
                "e => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length; }"
            )
            assert lines == 1, lines  # "C201-0501" read "C201-" over "0501"
            # measured in one go on the page (a board redraw between finding the table and measuring
            # it left a detached card without styles: NaN); it waits for a drawn board
            spare = page.wait_for_function(
                "() => { const t = document.querySelector('.board-itinerary table'), c = t && t.closest('.card');"
                " if (!c || !c.isConnected) return null; const s = getComputedStyle(c);"
                " const inside = c.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);"
                " return {spare: inside - t.scrollWidth}; }"
            ).json_value()["spare"]  # an object: a spare of 0 is an answer, not a falsy wait
            assert spare >= 0, spare  # the departures fit their card (the price column ran past its edge)
            tomorrow = buttons.filter(has_text="C201-0502")
            if tomorrow.count():  # offered a day ahead: it says so
                expect(tomorrow).to_contain_text("day 2, 06:50")
            for button, chip in (
                ("Train C201-0501 to Stonegate", None),
                ("(Stonegate: day 1 of 2)", "Stonegate: 1 of 2 days"),
                ("(Stonegate: day 2 of 2)", "✓ Stonegate: 2 of 2 days"),
                ("to Millbrook: 15:30", None),
                ("(Millbrook: day 1 of 1)", "✓ Millbrook: 1 of 1 day"),
                ("to Lakeside: 22:10 → day", None),
                ("(Lakeside: day 1 of 1)", "✓ Lakeside: 1 of 1 day"),
                ("to Harbourton: 06:40", None),
            ):
                target = buttons.filter(has_text=button).first
                expect(target).to_be_visible()
                press(page, target)
                if chip:
                    expect(page.locator(".board-itinerary .chip", has_text=chip)).to_be_visible()
                else:
                    expect(target).to_have_count(0)
            expect(page.locator("#game-result h2")).to_be_visible()
            expect(page.locator(".board-itinerary .verdict")).to_have_text("Every goal of the brief is met.")
            plan = page.locator(".board-itinerary .plan li")
            expect(plan.filter(has_text="stayed at Stonegate Railway Hotel").first).to_contain_text(" – day 2, ")
            expect(page.locator(".board-itinerary h2", has_text="The trip so far")).to_be_visible()
            # the hours between the last stay and the train to Millbrook: a wait where the traveller
            # is, as the studio's plan preview draws it (it read "wait")
            expect(page.locator("#game-timeline .tl-bar.wait[title^='In Stonegate']").first).to_be_attached()
            page.screenshot(path=str(shots / "itinerary-grand-tour.png"), full_page=True)
            # on a phone: the page does not scroll sideways (the departures table widened it by 8 px)
            # and the axis's times with their day do not run together ("d1 00d1020:00")
            page.set_viewport_size({"width": 390, "height": 844})
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            boxes = page.eval_on_selector_all(
                "#game-timeline .tl-tick",
                "ts => ts.filter(t => t.offsetParent).map(t => { const r = t.getBoundingClientRect();"
                " return [r.left, r.right, r.height, t.textContent]; })",
            )
            assert len(boxes) >= 2, boxes
            for (_, right, height, text), (left, _, _, after) in itertools.pairwise(boxes):
                assert right <= left, (text, after, boxes)
                assert height < 24, (text, height)  # one line each ("d3 12:00" wrapped)
            page.screenshot(path=str(shots / "itinerary-grand-tour-phone.png"), full_page=True)
        assert not errors, errors
    finally:
        stack.close()


def test_a_visit_cut_short_by_lunch_stays_right_while_the_player_reads(tmp_path, shots):
    """Harbourton with meals at the default pace: at 10:00 the museum's visit was offered as "for
    120 minutes (until 12:00)"; pressed a few seconds later it ran into lunch, and the log said
    "You meal: visit(...) overlaps lunch" in the success colour. Now it reads "until 12:00"."""
    from playwright.sync_api import expect

    stack, game_id, speed = start_game(tmp_path, "itinerary", "bundled/harbourton-with-meals")
    assert speed == 1.0
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id, password=PASSWORD)
            press(page, page.locator("#game-actions button.action[data-action='go to Maritime Museum']"))
            expect(page.locator(".board-itinerary .card", has_text="Where")).to_contain_text("Maritime Museum")
            press(page, page.locator("#game-actions button.action[data-action='wait until 10:00']"))
            visit = page.locator("#game-actions button.action[data-action='visit Maritime Museum until 12:00']")
            expect(visit).to_contain_text("Visit Maritime Museum until 12:00")
            page.wait_for_timeout(3000)  # three trip minutes of reading
            expect(visit).to_be_visible()
            press(page, visit)
            done = page.locator("#game-log-list .log-entry", has_text="visited Maritime Museum")
            expect(done).to_be_visible()
            assert page.locator("#game-log-list .log-entry.kind-violated").count() == 0
            expect(page.locator(".board-itinerary .plan")).to_contain_text("12:00 visit Maritime Museum")
            page.screenshot(path=str(shots / "itinerary-visit-until-lunch.png"), full_page=True)
        assert not errors, errors
    finally:
        stack.close()


# the page's own actions panel, its first keyed button marked as gone from the trip's first minute
# (as a drawing marks a train that leaves), sent as the server sends a redraw
FIRST_GOES = """() => {
  const panel = document.getElementById("game-actions").cloneNode(true);
  panel.setAttribute("hx-swap-oob", "true");
  const keyed = Array.from(panel.querySelectorAll("button.action[data-key]"))
    .filter(b => /^[1-9]$/.test(b.dataset.key));
  keyed[0].setAttribute("data-gone-at", "0");
  return [panel.outerHTML, keyed.map(b => b.dataset.action)];
}"""


def test_the_number_keys_count_the_buttons_left_when_the_clock_takes_one_away(tmp_path, shots):
    """A phone's list read "2 Go to…, 3…, W" with no 1 after a wait's moment had come: the keys
    kept the numbers of the drawing. They now count the buttons on show, and the key that now means
    another action says so when pressed, as after a teammate's action."""
    from playwright.sync_api import expect

    stack, game_id, _ = start_game(tmp_path, "itinerary", SCENARIO)
    sockets: list = []
    try:
        with chromium() as browser:
            page, errors = new_page(browser)

            def relay(ws) -> None:
                server = ws.connect_to_server()
                ws.on_message(server.send)
                sockets.append(ws)

            page.route_web_socket(re.compile(r".*/ws/games/.*"), relay)
            sign_in(page, stack.base, game_id, password=PASSWORD)
            page.locator("#game-actions [data-key='2']").wait_for()
            panel, actions = page.evaluate(FIRST_GOES)
            sockets[-1].send(panel)
            expect(page.locator(f"#game-actions button.action[data-action='{actions[0]}']")).to_be_hidden()
            shown = page.eval_on_selector_all(
                "#game-actions button.action:not([hidden])[data-key]",
                "bs => bs.filter(b => /^[1-9]$/.test(b.dataset.key)).map(b => [b.dataset.key, b.dataset.action])",
            )
            page.locator("#game-actions").screenshot(path=str(shots / "itinerary-keys-renumbered.png"))
            page.keyboard.press("1")
            expect(page.locator("#game-feedback")).to_contain_text("The actions just changed: 1 is now")
    finally:
        stack.close()
    assert not errors, errors
    assert [key for key, _ in shown] == [str(n) for n in range(1, len(shown) + 1)], shown
    assert [action for _, action in shown] == actions[1 : len(shown) + 1], (shown, actions)
