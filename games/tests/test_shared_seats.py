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
    assert f"{waits} if they are away 30 s" in html
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
