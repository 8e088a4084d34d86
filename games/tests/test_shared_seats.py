"""Games with several people: the clock starts once every human seat is connected, and a person
away too long leaves their seat to a backfill NPC (``games.services.seats``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games import clock, services
from games.models import Game, GameEvent, Seat

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
BACKFILL = {"backfill": {"dispatcher": "random", "after_seconds": 30}}


pytestmark = pytest.mark.usefixtures("fresh_presence")


@pytest.fixture
def second(django_user_model):
    return django_user_model.objects.create_user("second-player")


def two_humans(toy_scenario, first, second, *, settings=None, clock_mode="real_time"):
    seats = [{"kind": "human", "user": u, "settings": settings or {}} for u in (first, second)]
    return services.create_game("test/toy", seats, clock=clock_mode, speed=1.0, now=T0)


def game_time(game_id: int, at: datetime) -> float:
    return clock.game_time(Game.objects.get(pk=game_id), at)


def test_the_clock_waits_until_every_human_seat_is_connected(toy_scenario, participant, second):
    game = two_humans(toy_scenario, participant, second)
    assert game.paused and game.pause_reason == services.WAITING
    services.seat_connected(game.pk, 0, now=T0 + timedelta(seconds=5))
    assert game_time(game.pk, T0 + timedelta(seconds=9)) == 0  # the second player is still loading
    assert Game.objects.get(pk=game.pk).paused

    services.seat_connected(game.pk, 1, now=T0 + timedelta(seconds=9))
    game = Game.objects.get(pk=game.pk)
    assert not game.paused
    assert game_time(game.pk, T0 + timedelta(seconds=12)) == pytest.approx(3.0)  # from the second's arrival
    # the log says what happened, in order (it read "the game starts / the game starts when every
    # player is here / the game resumes")
    said = list(GameEvent.objects.filter(game=game, category="control").order_by("seq").values_list("data", flat=True))
    assert [entry["message"] for entry in said] == [
        "the game starts",
        "the clock starts when every player is here",
        "every player is here: the clock starts",
    ]


def _status(game_id: int, agents: list[int]) -> str:
    from django.template.loader import render_to_string

    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    who = Viewer(agents=agents, can_control=not agents)
    context = live_context(load_update(game_id, who, 0), who, full=True)
    return " ".join(render_to_string("games/live/_status.html", context).split())


def _log(game_id: int, agents: list[int]) -> list[str]:
    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    who = Viewer(agents=agents, can_control=not agents)
    return [line["message"] for line in live_context(load_update(game_id, who, 0), who, full=True)["log"]]


def test_a_shared_game_made_to_start_when_ready_waits_for_every_players_start(toy_scenario, participant, second):
    """Alone, a player reads the brief before pressing Start; together, the clock ran as soon as
    the last page had loaded, while the others were still reading."""
    seats = [{"kind": "human", "user": u} for u in (participant, second)]
    game = services.create_game("test/toy", seats, clock="real_time", speed=1.0, start_when_ready=True, now=T0)
    services.seat_connected(game.pk, 0, now=T0)
    services.seat_connected(game.pk, 1, now=T0 + timedelta(seconds=5))
    game = Game.objects.get(pk=game.pk)
    assert game.waits_for_start and game_time(game.pk, T0 + timedelta(minutes=5)) == 0
    said = game.events.filter(kind="paused").latest("seq").data["message"]
    assert said == "every player is here: the clock starts when each of them has pressed Start"
    both = _status(game.pk, [0])
    assert "The clock starts once you and Teammate 1 (second-player) have pressed Start" in both
    assert '{"type": "start"}' in both

    # an action before everyone is ready is not taken, and says whom the clock waits for
    first = r"press Start \(S\) when you have read the brief; Player 2 has not yet"
    with pytest.raises(services.GamePaused, match=first):
        services.apply_action(game.pk, agent=0, action="do sweep", by=participant, now=T0 + timedelta(minutes=1))
    services.start(game.pk, by=participant, now=T0 + timedelta(minutes=2))
    game = Game.objects.get(pk=game.pk)
    assert game.waits_for_start and game_time(game.pk, T0 + timedelta(minutes=5)) == 0
    ready = game.events.get(kind="ready")
    assert ready.data == {"message": "Player 1 is ready; the clock starts when Player 2 presses Start", "ready": [0]}
    # the log names people as the page does (it said "Player 2" where the page said "Teammate 1")
    assert "You are ready; the clock starts when Teammate 1 (second-player) presses Start" in _log(game.pk, [0])
    assert "Teammate 1 (par) is ready; the clock starts when you press Start" in _log(game.pk, [1])
    mine = _status(game.pk, [0])
    assert "you are ready: waiting for Teammate 1 (second-player)" in mine and '{"type": "start"}' not in mine
    theirs = _status(game.pk, [1])
    assert "The others are ready: the clock starts when you press Start" in theirs and '{"type": "start"}' in theirs
    assert "waiting for Player 2 (second-player) to press Start" in _status(game.pk, [])  # a researcher watching

    # the last player's first action is their Start: the clock starts and the action is taken
    at = T0 + timedelta(minutes=3)
    assert services.apply_action(game.pk, agent=1, action="do sweep", by=second, now=at).rejection is None
    game = Game.objects.get(pk=game.pk)
    assert not game.paused and game.anchor_time == 0 and game.anchor_at == at


def _both_reading(first, second) -> Game:
    """A shared game made to start when ready, both players connected at T0 (reading the brief)."""
    seats = [{"kind": "human", "user": u} for u in (first, second)]
    game = services.create_game("test/toy", seats, clock="real_time", speed=1.0, start_when_ready=True, now=T0)
    for agent in (0, 1):
        services.seat_connected(game.pk, agent, now=T0)
    return game


def test_a_shared_game_runs_once_the_last_unready_seat_goes_to_a_computer(toy_scenario, participant, second):
    game = _both_reading(participant, second)
    services.start(game.pk, by=participant, now=T0 + timedelta(seconds=10))
    assert Game.objects.get(pk=game.pk).waits_for_start
    services.replace_seat(game.pk, 1, dispatcher="random", now=T0 + timedelta(seconds=20))
    assert not Game.objects.get(pk=game.pk).paused  # nobody left to wait for
    assert game_time(game.pk, T0 + timedelta(seconds=25)) == pytest.approx(5.0)


def test_everyone_ready_but_one_gone_waits_for_them_to_be_back(toy_scenario, participant, second):
    game = _both_reading(participant, second)
    services.start(game.pk, by=second, now=T0 + timedelta(seconds=5))
    services.seat_disconnected(game.pk, 1, now=T0 + timedelta(seconds=6))  # pressed Start, then the tab closed
    services.start(game.pk, by=participant, now=T0 + timedelta(seconds=8))
    game = Game.objects.get(pk=game.pk)
    assert game.paused and game.pause_reason == services.WAITING  # the clock did not run without them
    services.seat_connected(game.pk, 1, now=T0 + timedelta(seconds=30))
    assert not Game.objects.get(pk=game.pk).paused
    assert game_time(game.pk, T0 + timedelta(seconds=32)) == pytest.approx(2.0)


def test_one_human_and_lockstep_games_start_at_once(toy_scenario, participant, second):
    solo = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time", now=T0)
    assert not solo.paused
    lockstep = two_humans(toy_scenario, participant, second, clock_mode="lockstep")
    assert not lockstep.paused  # lockstep waits for every seat's move anyway


def test_a_game_made_for_someone_else_waits_for_them(toy_scenario, participant, researcher):
    # a researcher's real-time game for a participant ran from its making: a kitchen of 60 steps
    # was over before its player opened the link
    seat = [{"kind": "human", "user": participant}]
    made = services.create_game("test/toy", seat, clock="real_time", speed=1.0, created_by=researcher, now=T0)
    assert made.paused and made.pause_reason == services.WAITING
    assert game_time(made.pk, T0 + timedelta(hours=1)) == 0  # an hour later, still not begun
    services.seat_connected(made.pk, 0, now=T0 + timedelta(hours=1))
    assert not Game.objects.get(pk=made.pk).paused
    assert game_time(made.pk, T0 + timedelta(hours=1, seconds=4)) == pytest.approx(4.0)  # from their arrival
    # their own game (a study's "Start game 1" too), or one that keeps running without them, starts at once
    own = services.create_game("test/toy", seat, clock="real_time", created_by=participant, now=T0)
    goes_on = services.create_game(
        "test/toy", seat, clock="real_time", created_by=researcher, disconnect_policy="continue", now=T0
    )
    assert not own.paused and not goes_on.paused


def test_a_seat_away_too_long_goes_to_its_backfill_npc_and_the_game_resumes(toy_scenario, participant, second):
    game = two_humans(toy_scenario, participant, second, settings=BACKFILL)
    services.seat_connected(game.pk, 0, now=T0)
    services.seat_connected(game.pk, 1, now=T0)
    services.seat_disconnected(game.pk, 1, now=T0 + timedelta(seconds=10))
    assert Game.objects.get(pk=game.pk).pause_reason == "disconnect"

    # the player left behind reads that help is coming (it said only "paused until the player returns")
    from django.template.loader import render_to_string

    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    left_behind = Viewer(agents=[0])
    context = live_context(load_update(game.pk, left_behind, 0), left_behind, full=True)
    html = " ".join(render_to_string("games/live/_status.html", context).split())
    # ... and whom the game waits for (it said "the player" in a game of two)
    waits = f"paused until Teammate 1 ({second.username}) returns; a computer teammate takes their seat"
    # counted down on the wall clock (it read "if they are away 30 s" the whole time), from the pause
    # until the scheduler has seen the seat empty
    assert f'{waits} <span data-wall-countdown="2026-01-01T12:00:40+00:00">soon</span>' in html
    # the chat goes to a person: it was offered as "a note for the log"
    assert 'placeholder="a message to your teammates"' in render_to_string("games/live/_chat.html", context)
    paused = game.events.filter(kind="paused").latest("seq")
    assert paused.data["message"] == "the game is paused until Player 2 returns"
    assert services.backfill_due(now=T0 + timedelta(seconds=11)) == []  # first seen missing: the wait starts
    assert services.backfill_due(now=T0 + timedelta(seconds=30)) == []  # 19 s away: not yet
    assert services.backfill_due(now=T0 + timedelta(seconds=42)) == [(game.pk, 1)]

    seat = Seat.objects.get(game=game, agent=1)
    assert (seat.kind, seat.dispatcher, seat.user) == ("npc", "random", None)
    game = Game.objects.get(pk=game.pk)
    assert not game.paused
    entry = GameEvent.objects.get(game=game, kind="seat_replaced")
    assert entry.agent == 1 and entry.data["left"] == "second-player" and "away for 30 s" in entry.data["reason"]
    assert entry.time == pytest.approx(10.0)  # when it was paused for them (it read t=0, the rules' time)
    # a line of the game's, not one the teammate says ("Teammate 1 a computer teammate takes over this seat")
    line = next(line for line in _log(game.pk, [0]) if "computer teammate takes over" in line)
    assert line == "a computer teammate takes over the seat of Teammate 1 (random NPC)"
    # the NPC now plays the seat: an NPC turn follows changes of the game
    assert services.backfill_due(now=T0 + timedelta(seconds=60)) == []


def test_a_returning_player_resets_the_wait(toy_scenario, participant, second):
    game = two_humans(toy_scenario, participant, second, settings=BACKFILL)
    services.seat_connected(game.pk, 0, now=T0)
    services.backfill_due(now=T0 + timedelta(seconds=1))  # seat 1 never came: the wait starts
    services.seat_connected(game.pk, 1, now=T0 + timedelta(seconds=20))
    assert services.backfill_due(now=T0 + timedelta(seconds=21)) == []
    services.seat_disconnected(game.pk, 1, now=T0 + timedelta(seconds=25))
    assert services.backfill_due(now=T0 + timedelta(seconds=40)) == []  # away 0 s by the check's count
    assert services.backfill_due(now=T0 + timedelta(seconds=69)) == []
    assert services.backfill_due(now=T0 + timedelta(seconds=71)) == [(game.pk, 1)]


def test_nobody_is_backfilled_when_no_one_is_left_to_play_with(toy_scenario, participant, second):
    game = two_humans(toy_scenario, participant, second, settings=BACKFILL)
    services.backfill_due(now=T0)
    assert services.backfill_due(now=T0 + timedelta(seconds=120)) == []
    assert Seat.objects.filter(game=game, kind="human").count() == 2


def test_seats_without_a_backfill_are_never_handed_over(toy_scenario, participant, second):
    game = two_humans(toy_scenario, participant, second)
    services.seat_connected(game.pk, 0, now=T0)
    services.backfill_due(now=T0)
    assert services.backfill_due(now=T0 + timedelta(hours=1)) == []


@pytest.mark.parametrize(
    "backfill",
    [{"dispatcher": "replay"}, {"dispatcher": "oracle"}, {"dispatcher": "random", "after_seconds": -1}, "random"],
)
def test_a_bad_backfill_is_refused_and_nothing_is_stored(toy_scenario, participant, second, backfill):
    with pytest.raises(services.InvalidInput):
        two_humans(toy_scenario, participant, second, settings={"backfill": backfill})
    assert not Game.objects.exists()


def test_replace_seat_refuses_npc_seats_and_finished_games(toy_scenario, participant):
    game = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}], now=T0
    )
    with pytest.raises(services.UnknownSeat):
        services.replace_seat(game.pk, 1, dispatcher="random")
    services.finish(game.pk, reason="test")
    with pytest.raises(services.GameOver):
        services.replace_seat(game.pk, 0, dispatcher="random")


def test_a_blinded_player_reads_that_a_teammate_took_over_but_not_who_left_or_what_plays(
    toy_scenario, participant, second
):
    from games import viewer

    game = two_humans(toy_scenario, participant, second, settings=BACKFILL)
    services.replace_seat(game.pk, 1, dispatcher="random", reason="the participant left the study")
    entry = GameEvent.objects.get(game=game, kind="seat_replaced")
    blinded = viewer.event_message(entry, blind=True)
    assert "random" not in str(blinded) and "second-player" not in str(blinded)
    assert "a computer teammate takes over" in str(blinded)
    assert "second-player" in str(viewer.event_message(entry))  # researchers see everything


def test_a_blinded_player_never_reads_another_players_account_name(toy_scenario, participant, second):
    """A study game's frames said "p-f14f2484030fe6ce: goto storage0" (the login-less account's name)."""
    from games import presenters, viewer

    game = two_humans(toy_scenario, participant, second, clock_mode="lockstep")
    services.apply_action(game.pk, agent=1, action="do dust", by=second)
    services.post_chat(game.pk, text="I dust: now", by=second, agent=1)
    for kind in ("act", "chat"):
        entry = GameEvent.objects.get(game=game, kind=kind)
        assert "second-player" in str(viewer.event_message(entry))  # researchers see everything
        blinded = viewer.event_message(entry, blind=True)
        assert "second-player" not in str(blinded), blinded
        assert blinded["agent"] == 1 and blinded["message"] in ("agent: do dust", "I dust: now")
        if kind == "chat":  # the log shows the text whole (a text with ": " lost its start)
            assert presenters.as_read_by(blinded, [0]) == "I dust: now"


def test_a_lockstep_game_says_how_its_clock_moves_until_it_has_moved(toy_scenario, participant):
    # a first lockstep game jumped its clock to a busy step's end without a word of why
    from django.template.loader import render_to_string

    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    player = Viewer(agents=[0])

    def status() -> str:
        context = live_context(load_update(game.pk, player, 0), player, full=True)
        return " ".join(render_to_string("games/live/_status.html", context).split())

    assert "Lockstep: the clock stands still while anyone still has to choose" in status()
    services.apply_action(game.pk, agent=0, action="do dust")
    assert "Lockstep:" not in status()


def test_a_researchers_resume_before_every_player_is_here_says_so(toy_scenario, participant, second, researcher):
    """The researcher's "Resume game" on a game waiting for its players started the clock, and the
    log said "every player is here" while the participant had not opened the game (they arrived at
    step 7); the button now says what it does."""
    game = two_humans(toy_scenario, participant, second)
    services.seat_connected(game.pk, 0, now=T0 + timedelta(seconds=5))
    assert "Start without waiting" in _status(game.pk, []) and "Resume game" not in _status(game.pk, [])
    services.resume(game.pk, by=researcher, now=T0 + timedelta(seconds=9))
    assert not Game.objects.get(pk=game.pk).paused
    said = GameEvent.objects.filter(game=game, category="control").order_by("seq").last().data["message"]
    assert said == f"{researcher.username} started the clock before every player was here", said


def test_a_player_left_in_a_game_paused_for_another_is_told_they_may_leave(toy_scenario, participant, second):
    """A phone playtester watched "Paused. Your actions wait until the game resumes." for minutes
    with no way out: the game waited for a player who had gone."""
    from django.template.loader import render_to_string

    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    game = two_humans(toy_scenario, participant, second)
    services.seat_connected(game.pk, 0, now=T0)
    services.seat_connected(game.pk, 1, now=T0)
    services.seat_disconnected(game.pk, 1, now=T0 + timedelta(seconds=10))
    left_behind = Viewer(agents=[0])
    context = live_context(load_update(game.pk, left_behind, 0), left_behind, full=True)
    html = " ".join(render_to_string("games/live/_actions.html", context).split())
    assert f"Paused until Teammate 1 ({second.username}) returns. Everything so far is saved" in html, html
    assert 'href="/games/mine/"' in html
