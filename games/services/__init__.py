"""Every state change of a game, one function each, used by every entry point (pages, the
websocket consumer, the REST API, the scheduler, the NPC runner and the study flow).

Each function locks the game row, takes the current state (``games.state_store``), asks the
rules, appends the resulting log entries (and, every so often, a snapshot) in one transaction, and
announces the change only after commit.
Time is computed from the game's stored anchor (``games.clock``); pass ``now`` to control it.

Errors a caller should show to the user are ``GameError`` subclasses with a message saying what to
do; nothing is written when one is raised (except ``GameOver``, raised after the clock caught up).

Stable signatures (other apps build on them):

- ``create_game(scenarios, seats, *, clock, speed, seed, options, disconnect_policy, created_by, now) -> Game``
- ``apply_action(game_id, *, agent, action, by=None, now=None) -> ActionResult``
- ``pass_turn(game_id, *, agent, by=None, now=None) -> ActionResult`` (the websocket's ``wait``)
- ``advance(game_id, *, now=None) -> int`` and ``advance_due(*, now=None, limit=200) -> list[int]``
- ``pause(game_id, *, reason, by=None, now=None)`` / ``resume(game_id, *, by=None, now=None)``
- ``start(game_id, *, by=None, now=None)``: a player's Start in a game created ``start_when_ready``
- ``finish(game_id, *, reason, by=None, now=None)``
- ``post_chat(game_id, *, text, by=None, agent=None, now=None) -> int``
- ``seat_connected(game_id, agent, *, now=None)`` / ``seat_disconnected(game_id, agent, *, now=None)``
- ``apply_disconnect_policy(game_id, *, now=None) -> bool``
- ``replace_seat(game_id, agent, *, dispatcher, settings=None, reason, by=None, now=None) -> int`` and
  ``backfill_due(*, now=None) -> list[(game_id, agent)]`` (a person's seat to an NPC mid-game)

A real-time game with several human seats is created paused (reason ``waiting``): its clock starts
when every one of them is connected; created ``start_when_ready`` (a study's shared game), it then
waits (reason ``ready``) until each of them has pressed Start (``Seat.ready_at``), the last one's
first action counting as their Start. A real-time game with one person created
``start_when_ready`` (the site's form, studies) is created paused (reason ``ready``): its clock
starts when that person presses Start or takes their first action.

The package is split by subject (``creating``, ``playing``, ``control``, ``connections``, ``seats``, and
``loop``, the path every change takes); import from ``games.services`` itself.
"""

from __future__ import annotations

from games import hooks
from games.services.connections import apply_disconnect_policy, seat_connected, seat_disconnected
from games.services.control import advance, advance_due, finish, next_due_at, pause, resume, start
from games.services.creating import (
    DEFAULT_SPEED,
    MAX_SEATS,
    NPC_DISPATCHERS,
    SEED_MAX,
    SeatSpec,
    create_game,
    scenario_definition,
    seats_problem,
)
from games.services.errors import GameError, GameOver, GamePaused, InvalidInput, UnknownSeat
from games.services.loop import CHANGEABLE, MAX_JUMPS, ActionResult
from games.services.playing import MAX_ACTION_LENGTH, MAX_CHAT_LENGTH, apply_action, pass_turn, post_chat
from games.services.seats import WAITING, backfill_due, replace_seat

__all__ = [
    "CHANGEABLE",
    "DEFAULT_SPEED",
    "MAX_ACTION_LENGTH",
    "MAX_CHAT_LENGTH",
    "MAX_JUMPS",
    "MAX_SEATS",
    "NPC_DISPATCHERS",
    "SEED_MAX",
    "WAITING",
    "ActionResult",
    "GameError",
    "GameOver",
    "GamePaused",
    "InvalidInput",
    "SeatSpec",
    "UnknownSeat",
    "advance",
    "advance_due",
    "apply_action",
    "apply_disconnect_policy",
    "backfill_due",
    "create_game",
    "finish",
    "hooks",
    "next_due_at",
    "pass_turn",
    "pause",
    "post_chat",
    "replace_seat",
    "resume",
    "scenario_definition",
    "seat_connected",
    "seat_disconnected",
    "seats_problem",
    "start",
]
