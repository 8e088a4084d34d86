"""Extension points other apps plug into, as "module:function" paths (missing modules are skipped).

``NPC_TURN``: called after every committed change of a running game that has NPC seats, as
``callback(game_id: int, seq: int)``. It must return at once: schedule the dispatcher's work off
the game loop (a Celery task, or a thread in the embedded default) and apply its answer later
through ``games.services.apply_action`` against the then-current state. The clock never waits for
it (in lockstep, time moves on once the NPC seats have acted or waited).

``GAME_FINISHED``: called once after a game ends, as ``callback(game_id: int)`` (studies move the
participant on; it must be quick as well).

``BLINDED``: ``predicate(game_id: int) -> bool``, true when the game's players must not learn what
plays its NPC seats (a study's game: participants read "Teammate 1..n"); researchers still see it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import import_module
from typing import Any

log = logging.getLogger(__name__)

NPC_TURN: list[str] = ["games.npc.turns:on_game_changed"]
GAME_FINISHED: list[str] = ["studies.flow:on_game_finished"]
BLINDED: list[str] = ["studies.flow:is_blinded"]

_resolved: dict[str, Callable[..., Any] | None] = {}


def _resolve(path: str) -> Callable[..., Any] | None:
    if path not in _resolved:
        module_name, func_name = path.split(":")
        try:
            _resolved[path] = getattr(import_module(module_name), func_name)
        except ModuleNotFoundError as error:
            if not (error.name and module_name.startswith(error.name)):
                raise
            _resolved[path] = None  # that app has not landed (or is not installed)
        except AttributeError:
            _resolved[path] = None
    return _resolved[path]


def call(paths: list[str], *args: Any) -> None:
    """Call every registered hook; a failing hook is logged and never breaks the game."""
    for path in paths:
        callback = _resolve(path)
        if callback is None:
            continue
        try:
            callback(*args)
        except Exception:
            log.exception("hook %s failed for %s", path, args)


def ask(paths: list[str], *args: Any) -> bool:
    """True if any registered predicate says so (a failing one is logged and counts as yes:
    when unsure, a blinded study stays blinded)."""
    for path in paths:
        callback = _resolve(path)
        if callback is None:
            continue
        try:
            if callback(*args):
                return True
        except Exception:
            log.exception("hook %s failed for %s", path, args)
            return True
    return False
