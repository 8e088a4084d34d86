"""Seats connecting and disconnecting, and the disconnect policy."""

from __future__ import annotations

from datetime import datetime

from games import presence
from games.models import (
    ClockMode,
    DisconnectPolicy,
    Game,
    GameStatus,
    Seat,
    SeatKind,
)
from games.services.control import everyone_here, pause, resume
from games.services.errors import GameError
from games.services.seats import WAITING


def seat_connected(game_id: int, agent: int, *, now: datetime | None = None) -> None:
    """A seat's player opened a connection; a game paused by their disconnect, or waiting for its
    people to arrive, resumes (starts its clock) once every human seat is connected."""
    presence.opened(game_id, agent, now)
    game = Game.objects.filter(pk=game_id).values("paused", "pause_reason", "status").first()
    if game is None:
        return
    waited = game["pause_reason"] in ("disconnect", WAITING)
    returned = waited and game["paused"] and game["status"] == GameStatus.RUNNING
    if returned and not _humans_missing(game_id):
        if game["pause_reason"] == WAITING:
            everyone_here(game_id, now=now)
        else:
            resume(game_id, now=now)


def seat_disconnected(game_id: int, agent: int, *, now: datetime | None = None) -> None:
    """A seat's player closed a connection; see ``apply_disconnect_policy``."""
    presence.closed(game_id, agent)
    apply_disconnect_policy(game_id, now=now)


def apply_disconnect_policy(game_id: int, *, now: datetime | None = None) -> bool:
    """With the ``pause`` policy a running real-time game stops its clock once a human seat has no
    connection left (after a disconnect, or when the process holding it died); True if it paused."""
    game = Game.objects.filter(pk=game_id).values("paused", "status", "clock", "disconnect_policy").first()
    if not game or game["paused"] or game["status"] != GameStatus.RUNNING:
        return False
    pauses = game["clock"] == ClockMode.REAL_TIME and game["disconnect_policy"] == DisconnectPolicy.PAUSE
    missing = _humans_missing(game_id)
    if not pauses or not missing:
        return False
    humans = Seat.objects.filter(game_id=game_id, kind=SeatKind.HUMAN).count()
    # with several people the log said "until the player returns", and not which one
    who = "the player" if humans == 1 else " and ".join(f"Player {agent + 1}" for agent in sorted(missing))
    try:
        pause(game_id, reason="disconnect", now=now, waiting_for=who)
    except GameError:
        return False
    return True


def _humans_missing(game_id: int) -> set[int]:
    """The human seats with no connection."""
    humans = set(Seat.objects.filter(game_id=game_id, kind=SeatKind.HUMAN).values_list("agent", flat=True))
    return humans - presence.connected_agents(game_id)
