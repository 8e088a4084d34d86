"""The server-authoritative clock, computed from a game's stored anchor (never ticked).

A game stores ``anchor_time`` (game time) at the wall-clock instant ``anchor_at``, its ``speed``
(game units per second) and whether it is paused. Every process (web workers, the scheduler)
derives the same time from those fields; clients draw it locally from the same anchor.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Protocol


class Anchored(Protocol):
    clock: str
    speed: float
    anchor_time: float
    anchor_at: datetime
    paused: bool


def runs_on_wall_clock(game: Anchored) -> bool:
    return game.clock == "real_time" and not game.paused


def game_time(game: Anchored, now: datetime) -> float:
    """Game time at wall-clock ``now`` (lockstep and fast games only move when the rules do)."""
    if not runs_on_wall_clock(game):
        return game.anchor_time
    elapsed = max(0.0, (now - game.anchor_at).total_seconds())
    return game.anchor_time + elapsed * game.speed


def engine_time(game: Anchored, now: datetime) -> int:
    """The time handed to the rules: whole units (minutes, seconds, steps), never ahead of the clock.

    The small epsilon keeps 2.9999999 (float error in ``elapsed * speed``) from flooring to 2.
    """
    return math.floor(game_time(game, now) + 1e-9)


def wall_time_at(game: Anchored, time: float) -> datetime | None:
    """When game time ``time`` will be reached on the wall clock (None if the clock is not running)."""
    if not runs_on_wall_clock(game) or game.speed <= 0:
        return None
    return game.anchor_at + timedelta(seconds=max(0.0, time - game.anchor_time) / game.speed)
