"""The errors a game's services raise; the message says what to do instead."""

from __future__ import annotations


class GameError(Exception):
    """A request the game cannot take; the message says what to do instead."""


class InvalidInput(GameError):
    pass


class GamePaused(GameError):
    pass


class GameOver(GameError):
    pass


class UnknownSeat(GameError):
    pass
