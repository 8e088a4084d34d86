"""Seat connections owned by server processes (games.presence): a process that dies takes its
connections with it, so the disconnect policy still applies; a live one is left alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games import presence, scheduler, services
from games.models import Game, SeatConnection, ServerProcess

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


pytestmark = pytest.mark.usefixtures("fresh_presence")


@pytest.fixture
def realtime_game(toy_scenario, participant):
    return services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time", now=T0)


def held_elsewhere(game: Game, *, server: str, seen: datetime) -> None:
    """The human's connection lives in another process, last heard of at ``seen``."""
    ServerProcess.objects.create(id=server, started_at=seen, seen_at=seen)
    SeatConnection.objects.create(game=game, agent=0, server_id=server, opened_at=seen)


def test_a_silent_process_is_forgotten_and_its_human_game_pauses(realtime_game):
    now = T0 + timedelta(seconds=10)  # the toy game's time limit is 40 s away at this speed
    held_elsewhere(realtime_game, server="dead", seen=now - timedelta(seconds=presence.STALE_SECONDS + 1))
    held_elsewhere(realtime_game, server="alive", seen=now - timedelta(seconds=1))
    assert scheduler.check_presence(now) == 0  # the live process still holds the human's websocket
    assert not ServerProcess.objects.filter(id="dead").exists()
    assert SeatConnection.objects.filter(game=realtime_game).count() == 1

    ServerProcess.objects.filter(id="alive").update(seen_at=now - timedelta(seconds=presence.STALE_SECONDS + 1))
    presence._last_beat[0] = 0.0  # the next heartbeat is due
    assert scheduler.check_presence(now) == 1
    game = Game.objects.get(pk=realtime_game.pk)
    assert game.paused and game.pause_reason == "disconnect"
    services.seat_connected(game.pk, 0, now=now + timedelta(seconds=5))  # the human comes back
    assert not Game.objects.get(pk=game.pk).paused


def test_a_single_process_forgets_every_other_at_start(toy_scenario, participant, monkeypatch):
    # starting now: recovery runs on the wall clock
    realtime_game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time")
    held_elsewhere(realtime_game, server="before-the-crash", seen=realtime_game.anchor_at)
    monkeypatch.setenv(presence.SHARED_ENV, "2")  # a restarted worker of make serve: others may live
    assert scheduler.recover_after_restart() == 0
    assert ServerProcess.objects.filter(id="before-the-crash").exists()
    monkeypatch.delenv(presence.SHARED_ENV)  # make run: one process, so the other one is gone
    assert scheduler.recover_after_restart() == 1
    assert list(ServerProcess.objects.values_list("id", flat=True)) == ["this-process"]
    assert Game.objects.get(pk=realtime_game.pk).pause_reason == "disconnect"


def test_a_process_taken_for_dead_puts_its_connections_back(realtime_game):
    services.seat_connected(realtime_game.pk, 0, now=T0)
    ServerProcess.objects.filter(id="this-process").delete()  # another process reaped us during a stall
    assert not SeatConnection.objects.exists()
    assert presence.heartbeat(T0 + timedelta(seconds=5), force=True)
    assert list(SeatConnection.objects.values_list("server_id", "agent")) == [("this-process", 0)]
    services.seat_disconnected(realtime_game.pk, 0, now=T0 + timedelta(seconds=10))
    assert not SeatConnection.objects.exists()
    assert Game.objects.get(pk=realtime_game.pk).paused
