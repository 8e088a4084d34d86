"""Extension points other apps plug into, as "module:function" paths (a path that does not import
is an error, never a hook quietly skipped).

``NPC_TURN``: called after every committed change of a running game that has NPC seats, as
``callback(game_id: int, seq: int)``. It must return at once: schedule the dispatcher's work off
the game loop (a Celery task, or a thread in the embedded default) and apply its answer later
through ``games.services.apply_action`` against the then-current state. The clock never waits for
it (in lockstep, time moves on once the NPC seats have acted or waited).

``GAME_FINISHED``: called once after a game ends, as ``callback(game_id: int)`` (studies move the
participant on; it must be quick as well).

``SEAT_REPLACED``: called after a person's seat went to an NPC mid-game (``services.replace_seat``),
as ``callback(game_id: int, agent: int)`` (studies let that participant move on).

``HOUSEKEEPING``: called by the games' scheduler loop about once a minute per process, as
``callback(now: datetime)`` (studies mark participants gone past their study's limit as dropped
out). It runs in the loop: it must be quick.

``BLINDED``: ``blinded_games(game_ids: list[int]) -> set[int]``, the games among ``game_ids`` whose
players must not learn what plays their NPC seats (a study's game: participants read "Teammate
1..n"); researchers still see it. One call answers a whole list (a page of games).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Any

from games.engine.domain import check_exists, resolve

log = logging.getLogger(__name__)

NPC_TURN: list[str] = ["games.npc.turns:on_game_changed"]
GAME_FINISHED: list[str] = ["studies.hooks:on_game_finished"]
SEAT_REPLACED: list[str] = ["studies.hooks:on_seat_replaced"]
BLINDED: list[str] = ["studies.hooks:blinded_games"]
HOUSEKEEPING: list[str] = ["studies.hooks:drop_inactive"]

_resolved: dict[str, Callable[..., Any]] = {}


def _resolve(path: str) -> Callable[..., Any]:
    if path not in _resolved:
        _resolved[path] = resolve(path)
    return _resolved[path]


def check() -> None:
    """Find every hook's module now (start-up), so a missing one stops the start, not a game's turn."""
    for path in (*NPC_TURN, *GAME_FINISHED, *SEAT_REPLACED, *BLINDED, *HOUSEKEEPING):
        check_exists(path)


def call(paths: list[str], *args: Any) -> None:
    """Call every registered hook; a failing hook is logged and never breaks the game."""
    for path in paths:
        callback = _resolve(path)
        try:
            callback(*args)
        except Exception:
            log.exception("hook %s failed for %s", path, args)


def blinded(game_ids: Collection[int]) -> set[int]:
    """The games among ``game_ids`` a registered ``BLINDED`` hook blinds (a failing hook is logged and
    blinds them all: when unsure, a blinded study stays blinded)."""
    ids = list(game_ids)
    found: set[int] = set()
    for path in BLINDED:
        try:
            found |= set(_resolve(path)(ids))
        except Exception:
            log.exception("hook %s failed for %s", path, ids)
            return set(ids)
    return found
