"""A person's seat handed to an NPC mid-game (backfill), and the check that does it when due.

A game with several people must not stall for everyone because one of them left: a human seat may
carry a ``backfill`` (``SeatSpec``), and once its player has been away ``after_seconds`` while
another person is still connected, ``backfill_due`` gives the seat to that NPC and the game goes
on (a game paused for the disconnect resumes). The seat's user is kept in the log entry, not on
the seat: the person who left no longer plays it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import clock, hooks, presence
from games.codec import Entry
from games.models import READY, WAITING, Game, GameStatus, Seat, SeatKind
from games.services.control import open_gate, run_clock
from games.services.errors import GameOver, InvalidInput, UnknownSeat
from games.services.loop import _catch_up, _load, _name, _save

MISSING_SINCE = "missing_since"  # seat settings: when backfill_due first found the seat empty


def replace_seat(
    game_id: int,
    agent: int,
    *,
    dispatcher: str,
    settings: Mapping[str, Any] | None = None,
    reason: str = "the player left",
    by: Any = None,
    now: datetime | None = None,
) -> int:
    """Give human seat ``agent`` to an NPC of ``dispatcher``; returns the game's seq. The game
    resumes if it was only waiting for that seat. Calls ``hooks.SEAT_REPLACED`` after commit."""
    from games.services.creating import NPC_DISPATCHERS

    if dispatcher not in NPC_DISPATCHERS or dispatcher == "replay":
        raise InvalidInput("a seat can go to an llm, planner or random NPC")
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; its seats stay as they were")
        seat = Seat.objects.select_for_update().filter(game=game, agent=agent).first()
        if seat is None or seat.kind != SeatKind.HUMAN:
            raise UnknownSeat(f"agent {agent} of game {game_id} is not a person's seat")
        _catch_up(ctx)
        left = seat.user.get_username() if seat.user is not None else ""
        seat.kind, seat.user, seat.dispatcher, seat.settings = SeatKind.NPC, None, dispatcher, dict(settings or {})
        seat.save(update_fields=["kind", "user", "dispatcher", "settings"])
        ctx.seat_kinds = list(game.seats.order_by("agent").values_list("kind", flat=True))
        ctx.append(
            Entry(
                "control",
                "seat_replaced",
                # the game's clock, as the pause before it (the rules' time lags it: it read t=0)
                clock.game_time(game, ctx.now),
                agent=agent,
                data={
                    "message": "a computer teammate takes over this seat",
                    "reason": reason[:200],
                    "dispatcher": dispatcher,
                    "left": left,
                    "by": _name(by),
                },
            )
        )
        missing = _humans_missing(game_id)
        if game.paused and game.pause_reason in (WAITING, READY) and not missing:
            open_gate(ctx)  # the clock may have waited for them (to come, or to press Start)
        elif game.paused and game.pause_reason == "disconnect" and not missing:
            run_clock(ctx, None)
        _save(ctx)
        seq = game.last_seq
        transaction.on_commit(lambda: hooks.call(hooks.SEAT_REPLACED, game_id, agent))
    return seq


def _humans_missing(game_id: int) -> set[int]:
    humans = set(Seat.objects.filter(game_id=game_id, kind=SeatKind.HUMAN).values_list("agent", flat=True))
    return humans - presence.connected_agents(game_id)


def backfill_due(*, now: datetime | None = None) -> list[tuple[int, int]]:
    """Hand over every human seat with a ``backfill`` whose player has been away its
    ``after_seconds`` while someone else in the game is connected; returns (game, agent) pairs.
    Called every few seconds by the scheduler (its presence heartbeat)."""
    now = now or timezone.now()
    seats = list(
        Seat.objects.filter(
            game__status=GameStatus.RUNNING, kind=SeatKind.HUMAN, settings__has_key="backfill"
        ).order_by("game_id", "agent")
    )
    replaced = []
    connected: dict[int, set[int]] = {}
    for seat in seats:
        if seat.game_id not in connected:
            connected[seat.game_id] = presence.connected_agents(seat.game_id)
        here = connected[seat.game_id]
        if seat.agent in here:
            if MISSING_SINCE in seat.settings:
                seat.settings.pop(MISSING_SINCE)
                seat.save(update_fields=["settings"])
            continue
        since = seat.settings.get(MISSING_SINCE)
        if since is None:
            seat.settings[MISSING_SINCE] = now.timestamp()
            seat.save(update_fields=["settings"])
            continue
        backfill = seat.settings["backfill"]
        if now - datetime.fromtimestamp(float(since), tz=now.tzinfo) < timedelta(seconds=backfill_wait(backfill)):
            continue
        others = Seat.objects.filter(game_id=seat.game_id, kind=SeatKind.HUMAN).exclude(agent=seat.agent)
        if not others.filter(agent__in=here).exists():
            continue  # nobody left to play with: the game waits (or pauses) as its policy says
        try:
            replace_seat(
                seat.game_id,
                seat.agent,
                dispatcher=backfill["dispatcher"],
                settings=backfill.get("settings") or {},
                reason=f"away for {backfill_wait(backfill):g} s",
                now=now,
            )
        except (GameOver, UnknownSeat):
            continue
        replaced.append((seat.game_id, seat.agent))
    return replaced


def backfill_wait(backfill: Mapping[str, Any]) -> float:
    """How long a seat's player may be away before its ``backfill`` takes the seat, in seconds."""
    return float(backfill.get("after_seconds", 60))


def is_waiting(game: Game) -> bool:
    return bool(game.paused and game.pause_reason == WAITING)
