"""Object-level checks for games: who may watch a game, act in which seat, pause it.

Built on the role predicates of ``accounts.permissions``; views, the consumer and the API ask only
these functions.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from accounts.permissions import can_watch_any_game, is_researcher
from games import hooks
from games.models import Game, Seat, SeatKind


def seats_of(user: Any, game: Game) -> list[Seat]:
    """The human or program seats ``user`` plays in ``game`` (NPC seats belong to no user)."""
    if not getattr(user, "is_authenticated", False):
        return []
    return [s for s in game.seats.all() if s.user_id == user.pk and s.kind != SeatKind.NPC]


def can_watch(user: Any, game: Game) -> bool:
    """Researchers watch any game; players watch their own; the creator (an API client) too."""
    if not getattr(user, "is_authenticated", False):
        return False
    return can_watch_any_game(user) or game.created_by_id == user.pk or bool(seats_of(user, game))


def is_blinded(user: Any, game: Game) -> bool:
    """A study's game keeps its NPCs' kind, model and dispatcher from everyone but researchers."""
    return not can_watch_any_game(user) and bool(hooks.blinded([game.pk]))


def blinded_among(user: Any, games: Collection[Game]) -> set[int]:
    """``is_blinded`` for a page of games at once: the ids of those ``user`` plays blind."""
    return set() if can_watch_any_game(user) else hooks.blinded([game.pk for game in games])


def can_act(user: Any, game: Game, agent: int) -> bool:
    """Only the user seated at ``agent`` acts for it (a participant never in someone else's seat)."""
    return any(seat.agent == agent for seat in seats_of(user, game))


def can_control(user: Any, game: Game) -> bool:
    """Pause, resume and stop: researchers, and the program that created the game."""
    if not getattr(user, "is_authenticated", False):
        return False
    return is_researcher(user) or (game.created_by_id == user.pk and not _plays_as_human(game, user))


def _plays_as_human(game: Game, user: Any) -> bool:
    # a participant whose game was created in their name (a study) still may not pause it
    return any(seat.kind == SeatKind.HUMAN for seat in seats_of(user, game))


def replay_source(user: Any, game_id: Any) -> Game | None:
    """The game an NPC replay seat of ``user``'s game may copy: only one ``user`` may watch (the
    same check as the game's replay page), so a replay never reads someone else's private game."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or game_id <= 0:
        return None
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not can_watch(user, game):
        return None
    return game
