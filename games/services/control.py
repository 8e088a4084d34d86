"""The clock and the game's life: advancing due games, pause, resume and finish."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import clock
from games.codec import Entry
from games.models import (
    READY,
    WAITING,
    Game,
    GameStatus,
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
    """The player of a game made to start when ready (``READY``) starts its clock: after reading
    the brief, not while the page was still loading. A game that has started already is left as
    it is (a second press, or a press on another tab, changes nothing)."""
    return _restart(game_id, by, now, lambda game: game.waits_for_start, "started")


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
        _catch_up(ctx)
        if not ctx.game.is_finished:
            _end(ctx, reason or "ended", by=by)
        _save(ctx)
        return ctx.game.last_seq
