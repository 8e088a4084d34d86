"""The clock and the game's life: advancing due games, pause, resume and finish."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import clock, presence
from games.codec import Entry
from games.models import (
    READY,
    WAITING,
    Game,
    GameStatus,
    Seat,
    SeatKind,
)
from games.services.errors import GameError, GameOver
from games.services.loop import _catch_up, _end, _load, _name, _save


def advance(game_id: int, *, now: datetime | None = None) -> int:
    """Apply whatever came due by ``now`` (completions, arrivals, the time limit); returns the seq.
    Harmless to call at any time and from several processes."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        if not ctx.game.is_finished:
            _catch_up(ctx)
            _save(ctx)
        return ctx.game.last_seq


def advance_due(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """The scheduler's step: advance every running game whose ``next_deadline_at`` has come.

    Games another process holds locked are skipped (that process brings them up to date itself).
    """
    now = now or timezone.now()
    due = list(
        Game.objects.filter(status=GameStatus.RUNNING, paused=False, next_deadline_at__lte=now)
        .order_by("next_deadline_at")
        .values_list("pk", flat=True)[:limit]
    )
    advanced = []
    for game_id in due:
        with transaction.atomic():
            ctx = _load(game_id, now, skip_locked=True)
            if ctx is None or ctx.game.is_finished:
                continue
            _catch_up(ctx)
            _save(ctx)
            advanced.append(game_id)
    return advanced


def next_due_at() -> datetime | None:
    """When the scheduler next has work (it sleeps until then, or a short poll interval)."""
    return (
        Game.objects.filter(status=GameStatus.RUNNING, paused=False, next_deadline_at__isnull=False)
        .order_by("next_deadline_at")
        .values_list("next_deadline_at", flat=True)
        .first()
    )


def pause(
    game_id: int, *, reason: str = "researcher", by: Any = None, now: datetime | None = None, waiting_for: str = ""
) -> int:
    """Stop the clock (a researcher, or ``reason="disconnect"`` from the disconnect policy, which
    names whom it waits for in ``waiting_for``)."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; there is nothing to pause")
        if game.paused:
            return game.last_seq
        _catch_up(ctx)
        if not game.is_finished:
            game.anchor_time = clock.game_time(game, ctx.now)
            game.anchor_at = ctx.now
            game.paused = True
            game.pause_reason = reason[:20]
            returns = f" until {waiting_for or 'the player'} returns" if reason == "disconnect" else ""
            message = f"the game is paused{returns}"
            ctx.append(
                Entry(
                    "control", "paused", game.anchor_time, data={"reason": reason, "message": message, "by": _name(by)}
                )
            )
        _save(ctx)
        return game.last_seq


def resume(game_id: int, *, by: Any = None, now: datetime | None = None) -> int:
    """Restart the clock from where it stopped."""
    return _restart(game_id, by, now, lambda game: game.paused, "resumed")


def start(game_id: int, *, by: Any = None, now: datetime | None = None) -> int:
    """A player of a game made to start when ready (``READY``) is ready: after reading the brief,
    not while the page was still loading. Alone, their Start starts the clock; with other people,
    it starts with the last one's Start (``ready``). A game that has started already is left as it
    is (a second press, or a press on another tab, changes nothing). A caller with no seat of its
    own in the game (a researcher, a program) starts the clock for everyone."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; it cannot be started")
        if game.waits_for_start:
            if ready(ctx, by) and not _seated(game, by):
                run_clock(ctx, by)
            _catch_up(ctx)
            _save(ctx)
        return game.last_seq


def ready(ctx: Any, by: Any) -> list[int]:
    """``by``'s seats in a game waiting for its Start are ready (inside the caller's transaction);
    the agents of the people still to press Start, none once the clock runs. A seat that is ready
    stays so; while others are not, the log says whom the clock waits for. With everyone ready but
    someone gone meanwhile, the clock waits for them to be back (``WAITING``)."""
    game = ctx.game
    seats = list(Seat.objects.select_for_update().filter(game=game, kind=SeatKind.HUMAN).order_by("agent"))
    mine = [seat for seat in seats if by is not None and seat.user_id is not None and seat.user_id == by.pk]
    newly = [seat for seat in mine if seat.ready_at is None]
    for seat in newly:
        seat.ready_at = ctx.now
        seat.save(update_fields=["ready_at"])
    unready = [seat.agent for seat in seats if seat.ready_at is None]
    if unready:
        if newly:
            waiting = " and ".join(f"Player {agent + 1}" for agent in unready)
            presses = "presses" if len(unready) == 1 else "press"
            message = f"Player {newly[0].agent + 1} is ready; the clock starts when {waiting} {presses} Start"
            # named as the log's other control lines name people ("paused until Player 2 returns")
            data = {"message": message, "ready": [seat.agent for seat in newly]}
            ctx.append(Entry("control", "ready", game.anchor_time, data=data))
        return unready
    gone = {seat.agent for seat in seats} - presence.connected_agents(game.pk) if len(seats) > 1 else set()
    if gone:
        game.pause_reason = WAITING
        message = "everyone is ready; the clock starts when every player is here"
        ctx.append(Entry("control", "paused", game.anchor_time, data={"reason": WAITING, "message": message, "by": ""}))
    else:
        run_clock(ctx, by)
    return []


def everyone_here(game_id: int, *, now: datetime | None = None) -> int:
    """Every person of a game waiting for them (``WAITING``) is connected: see ``open_gate``."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if not game.is_finished and game.paused and game.pause_reason == WAITING:
            open_gate(ctx)
            _catch_up(ctx)
            _save(ctx)
        return game.last_seq


def open_gate(ctx: Any) -> None:
    """A game waiting for its people, all of them here now (inside the caller's transaction): the
    clock runs if every person is ready, else it waits for the Start of those who are not (a game
    made to start when ready: in a shared game each person reads the brief first, as alone)."""
    game = ctx.game
    if not Seat.objects.filter(game=game, kind=SeatKind.HUMAN, ready_at__isnull=True).exists():
        run_clock(ctx, None)
    elif game.pause_reason != READY:
        game.pause_reason = READY
        message = "every player is here: the clock starts when each of them has pressed Start"
        ctx.append(Entry("control", "paused", game.anchor_time, data={"reason": READY, "message": message, "by": ""}))


def _seated(game: Game, by: Any) -> bool:
    return by is not None and Seat.objects.filter(game=game, kind=SeatKind.HUMAN, user_id=by.pk).exists()


def _restart(game_id: int, by: Any, now: datetime | None, due: Callable[[Game], bool], done: str) -> int:
    """Run a paused game's clock (``resume``, ``start``) when ``due`` says it should; the seq."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; it cannot be {done}")
        if due(game):
            run_clock(ctx, by)
            _catch_up(ctx)
            _save(ctx)
        return game.last_seq


def run_clock(ctx: Any, by: Any) -> None:
    """Set a paused game's clock running from now (inside the caller's transaction)."""
    game = ctx.game
    # a shared game's log read "the game starts / the game starts when every player is here / the
    # game resumes": the clock's first run says it starts, whatever it waited for
    messages = {READY: "the clock starts", WAITING: "every player is here: the clock starts"}
    message = messages.get(game.pause_reason, "the game resumes")
    if game.pause_reason == WAITING and by is not None:
        # a researcher's Resume while a seated player had not opened the game: the log said
        # "every player is here", and the player arrived at step 7
        message = f"{_name(by)} started the clock before every player was here"
    game.paused, game.pause_reason, game.anchor_at = False, "", ctx.now
    ctx.append(Entry("control", "resumed", game.anchor_time, data={"message": message, "by": _name(by)}))


def finish(
    game_id: int, *, reason: str, by: Any = None, now: datetime | None = None, paused_before: datetime | None = None
) -> int:
    """End a game early (a researcher stops it); the metrics are those reached so far. With
    ``paused_before``, only a game still paused since before then (checked under the game's lock,
    so a player who resumes it in the same instant keeps playing: ``GameError`` says so)."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        if ctx.game.is_finished:
            return ctx.game.last_seq
        if paused_before is not None and not (ctx.game.paused and ctx.game.anchor_at < paused_before):
            raise GameError("it was resumed a moment ago, so it goes on")
        # the game ends at the time on its clock: brought only as far as its last deadline, a tasks
        # game stopped at 2.6 ended "at minute 1" and its header went back to 1.0
        stopped_at = clock.game_time(ctx.game, ctx.now)
        _catch_up(ctx, before_action=True)
        if not ctx.game.is_finished:
            _end(ctx, reason or "ended", by=by)
            ctx.game.anchor_time = max(ctx.game.anchor_time, stopped_at)
        _save(ctx)
        return ctx.game.last_seq
