"""A real-time itinerary game as a person plays it: the time the header and the timeline's
now-line read is the traveller's clock (the one the board shows), which jumps to the end of each
action (SPEC section 5); and the score chart ends on the stored result's headline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games import metrics, presenters, services
from games.importers import bundled_itinerary
from games.models import Game
from games.viewer import Viewer, load_update

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SCENARIO = "bundled/harbourton-morning"
PLAYER = Viewer(agents=[0])


def _game(django_user_model) -> Game:
    bundled_itinerary.load(log=lambda line: None)
    player = django_user_model.objects.create_user("traveller")
    return services.create_game(
        SCENARIO, [{"kind": "human", "user": player}], clock="real_time", created_by=player, now=T0
    )


def _header(game: Game, now: datetime) -> dict:
    """What the play page's header, now-line and board are drawn from at wall-clock ``now``."""
    update = load_update(game.pk, PLAYER, 0, now=now)
    context = presenters.live_context(update, PLAYER, full=True)
    return {
        "time": update.state["time"],
        "text": context["header_clock"]["text"],
        "now_line": context["timeline"].now,
        "board": update.state["observation"]["data"]["clock"]["minute"],
        "anchor": (context["clock_attrs"]["anchor_time"], context["clock_attrs"]["anchor_at"]),
    }


def update_board(game: Game, now: datetime) -> dict:
    return load_update(game.pk, PLAYER, 0, now=now).state["observation"]["data"]


def test_after_a_wait_the_header_and_now_line_read_the_boards_clock(django_user_model):
    game = _game(django_user_model)
    speed = game.speed
    start = load_update(game.pk, PLAYER, 0, now=T0).state
    wait = next(a for a in start["legal_actions"] if a.startswith("wait until"))
    clicked = T0 + timedelta(seconds=3)
    services.apply_action(game.pk, agent=0, action=wait, now=clicked)

    shown = _header(game, clicked)
    assert shown["board"] > 3 * speed  # the traveller's clock jumped past the wall clock's 3 minutes
    assert shown["time"] == shown["board"]
    clock = update_board(game, clicked)["clock"]
    assert shown["text"] == clock["text"][-5:]  # the header reads the traveller's clock: "08:00"
    assert shown["now_line"] == shown["board"]
    assert shown["anchor"] == (float(shown["board"]), clicked.isoformat())  # the page's ticking clock starts there

    # reading the board costs time from where the wait ended, and the next action starts then
    later = clicked + timedelta(seconds=4)
    assert _header(game, later)["time"] == pytest.approx(shown["board"] + 4 * speed)
    moves = [a for a in load_update(game.pk, PLAYER, 0, now=later).state["legal_actions"] if a.startswith("go to")]
    services.apply_action(game.pk, agent=0, action=moves[0], now=later)
    waited = Game.objects.get(pk=game.pk).events.filter(category="clock", kind="advance").last()
    assert waited is not None and waited.data == {"from": shown["board"], "until": shown["board"] + 4 * speed}


def test_a_finished_games_chart_ends_on_its_stored_headline(django_user_model):
    game = _game(django_user_model)
    now = T0
    for _ in range(60):
        game.refresh_from_db()
        if game.is_finished:
            break
        now += timedelta(seconds=2)
        legal = load_update(game.pk, PLAYER, 0, now=now).state["legal_actions"]
        doing = [a for a in legal if a.startswith("visit")] or [a for a in legal if not a.startswith("wait")] or legal
        try:
            services.apply_action(game.pk, agent=0, action=doing[0], now=now)
        except services.GameOver:
            break  # the trip's end time came while the player read
    game.refresh_from_db()
    assert game.is_finished
    final = metrics.headline(game.domain, game.result)
    assert final is not None and final > 0
    update = load_update(game.pk, PLAYER, 0, now=now + timedelta(seconds=5))
    chart = presenters.live_context(update, PLAYER, full=True)["chart"]
    assert game.progress_points[-1][1] == final
    assert chart["last"] == final
    last_y = float(chart["points"].split()[-1].split(",")[1])
    assert last_y == pytest.approx(100 - final, abs=0.01)


def _xy(chart: dict) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in chart["points"].split())]


def test_a_score_reached_past_the_timelines_span_stays_on_the_chart():
    # the traveller's clock jumped to minute 60 with the score at 65 while the timeline spans 10
    chart = presenters.progress_chart([[0.0, 0.0], [60.0, 65.0]], 10.0, 8.5)
    drawn = _xy(chart)
    assert all(0 <= x <= 100 for x, _ in drawn)
    assert drawn[-1] == (100.0, 35.0)  # the line ends on 65 %, at the right edge
    assert [x for x, _ in drawn] == sorted(x for x, _ in drawn)  # never drawn back in time


def test_a_finished_chart_ends_on_the_final_headline_given():
    chart = presenters.progress_chart([[0.0, 0.0], [30.0, 65.0]], 40.0, 40.0, final=70.0)
    assert chart["last"] == 70.0
    assert _xy(chart)[-1] == (100.0, 30.0)
    same = presenters.progress_chart([[0.0, 0.0], [40.0, 70.0]], 40.0, 40.0, final=70.0)
    assert same["points"] == presenters.progress_chart([[0.0, 0.0], [40.0, 70.0]], 40.0, 40.0)["points"]


def _scheduler_until(game: Game, until: datetime) -> list[datetime]:
    """Run the scheduler as the server does (``advance_due`` at each game's ``next_deadline_at``)
    up to wall-clock ``until``; the moments it woke the game."""
    woke = []
    for _ in range(100):
        game.refresh_from_db()
        due = game.next_deadline_at
        if game.is_finished or due is None or due > until:
            break
        assert game.pk in services.advance_due(now=due)
        woke.append(due)
    return woke


def test_a_traveller_who_only_reads_sees_the_sight_open(django_user_model):
    # Walk to the Maritime Museum (opens 10:00), arrive at 07:21 and press nothing: the page offered
    # "wait until 10:00"; when 10:00 comes the clock moves the traveller there and the visit is on
    # the menu (it used to stay off it until the player acted, with the wait button gone).
    game = _game(django_user_model)
    services.apply_action(game.pk, agent=0, action="go to Maritime Museum", now=T0 + timedelta(seconds=1))
    arrived = update_board(game, T0 + timedelta(seconds=1))
    assert arrived["clock"]["text"].endswith("07:21")
    assert not any(a.startswith("visit") for a in load_update(game.pk, PLAYER, 0, now=T0).state["legal_actions"])

    ten = T0 + timedelta(seconds=1 + (180 - 21) / game.speed)  # the trip clock reads 10:00 (minute 180)
    woke = _scheduler_until(game, ten)
    assert woke, "nothing moved the reading traveller's clock"
    board = update_board(game, ten)
    assert board["clock"]["text"].endswith("10:00")
    legal = load_update(game.pk, PLAYER, 0, now=ten).state["legal_actions"]
    assert "visit Maritime Museum for 90 minutes" in legal
    # the reading was woken more than once (each sight's opening, an hour at most) but reads as one
    # wait: one line of the day, one bar, and the log in the page's clock
    page = presenters.live_context(load_update(game.pk, PLAYER, 0, now=ten), PLAYER, full=True)
    assert len(woke) > 1
    waits = [leg for leg in page["board"]["day"] if leg["kind"] == "stay"]
    # (the second before the first click is a wait too)
    assert [(w["start_text"][-5:], w["end_text"][-5:]) for w in waits] == [("07:00", "07:01"), ("07:21", "10:00")]
    bars = [b for b in page["timeline"].rows[0].bars if b.kind == "wait"]
    assert [(b.start, b.end) for b in bars] == [(0.0, 1.0), (21.0, 180.0)]
    said = [e["message"] for e in page["log"] if "waited" in e["message"]]
    assert said == ["You waited in Harbourton until 10:00."]  # one line, not one per wake
    # the time was spent where the traveller stood, and the visit from there counts in full; the
    # five minutes read before it are in the day and on the timeline, not a log line of their own
    pressed = ten + timedelta(seconds=5 / game.speed)
    services.apply_action(game.pk, agent=0, action="visit Maritime Museum for 90 minutes", now=pressed)
    assert update_board(game, pressed)["clock"]["text"].endswith("11:35")
    page = presenters.live_context(load_update(game.pk, PLAYER, 0, now=pressed), PLAYER, full=True)
    assert ("07:21", "10:05") in [(d["start_text"][-5:], d["end_text"][-5:]) for d in page["board"]["day"]]
    lines = [e["message"] for e in page["log"]]
    assert lines[-2:] == [
        "You waited in Harbourton until 10:00.",
        "visited Maritime Museum for 90 minutes.",
    ]


def test_a_trip_nobody_plays_ends_at_its_end_time(django_user_model):
    game = _game(django_user_model)
    end = T0 + timedelta(seconds=1020 / game.speed)  # 07:00 to midnight, one trip minute a second
    woke = _scheduler_until(game, end)
    game.refresh_from_db()
    assert game.is_finished and game.outcome == "the trip's end time has come"
    assert game.finished_at == end and woke[-1] == end
    assert len(woke) <= 18  # once an hour at most, not every tick
    page = presenters.live_context(load_update(game.pk, PLAYER, 0, now=end), PLAYER, full=True)
    said = [e["message"] for e in page["log"] if "waited" in e["message"]]
    assert said == ["You waited in Harbourton until 00:00."]  # midnight, one line for the day


def test_the_live_page_reads_a_run_of_wakes_as_one_line_as_they_come(django_user_model):
    # each wake of a traveller who only reads used to be appended to the page's log as it came
    # ("waited until 08:00", "waited until 09:00", ...) although a reload read them as one line
    from django.template.loader import render_to_string

    def live(since: int, now: datetime) -> str:
        """The update's log part: the list whole (``hx-swap-oob="true"``) or lines to append."""
        update = load_update(game.pk, PLAYER, since, now=now)
        html = render_to_string("games/live/_update.html", presenters.live_context(update, PLAYER, full=False))
        return html[html.rfind("<ol ") :]

    game = _game(django_user_model)
    services.apply_action(game.pk, agent=0, action="go to Maritime Museum", now=T0 + timedelta(seconds=1))
    wakes = 0
    for _ in range(10):
        game.refresh_from_db()
        since, due = game.last_seq, game.next_deadline_at
        assert due is not None
        services.advance_due(now=due)
        html = live(since, due)
        if "waited in Harbourton" not in html:
            continue
        wakes += 1
        assert 'id="game-log-list"' in html and 'hx-swap-oob="true"' in html  # the log whole, not appended
        assert html.count("You waited in Harbourton until") == 1
        if "until 10:00" in html:
            break
    assert wakes > 1
    # an action's update appends its line: the wait the player read through is not a line
    game.refresh_from_db()
    since, pressed = game.last_seq, due + timedelta(seconds=5 / game.speed)
    services.apply_action(game.pk, agent=0, action="visit Maritime Museum for 90 minutes", now=pressed)
    html = live(since, pressed)
    assert html.startswith('<ol hx-swap-oob="beforeend:#game-log-list">') and "visited Maritime Museum" in html
    assert "waited" not in html
