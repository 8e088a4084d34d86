"""Telling a game's viewers that it changed, only after the change is committed.

The message carries no state: each connection re-reads what *its* viewer may see (per-viewer
rendering), from the committed log, so a lost or late message never loses an event.

Inside the ASGI server the change is committed in a worker thread; the message is handed to the
server's event loop (``serve_from``) without waiting for the channel layer, so the thread is free
for the next change at once. Elsewhere (commands, Celery workers, tests without a loop) it is sent
before returning.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: int | None = None


def group_name(game_id: int) -> str:
    return f"game.{game_id}"


def serve_from(loop: asyncio.AbstractEventLoop) -> None:
    """Hand messages to ``loop`` (the server's), called from code running on it."""
    global _loop, _loop_thread
    _loop, _loop_thread = loop, threading.get_ident()


def send_changed(game_id: int, seq: int) -> None:
    _send(game_id, {"type": "game.changed", "game": game_id, "seq": seq}, f"seq {seq}")


def send_thinking(game_id: int, agents: list[int]) -> None:
    """Tell the game's viewers which NPC seats wait for their model's answer now ([] when none).

    Nothing is stored: it only says why a teammate stands idle, and a viewer who misses it loses
    nothing (the next one, or the NPC's action, follows within the model's timeout)."""
    _send(game_id, {"type": "game.thinking", "game": game_id, "agents": list(agents)}, "thinking")


def _send(game_id: int, message: dict[str, Any], what: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _loop
    if loop is not None and loop.is_running() and threading.get_ident() != _loop_thread:
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group_name(game_id), message), loop)
        future.add_done_callback(lambda done: _report(done, game_id, what))
        return
    try:
        async_to_sync(layer.group_send)(group_name(game_id), message)
    except Exception:
        # A change is committed; viewers catch up on their next message or sync.
        log.exception("could not broadcast game %s %s", game_id, what)


def _report(done: Future[Any], game_id: int, what: str) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("could not broadcast game %s %s: %s", game_id, what, done.exception())


def announce_on_commit(game_id: int, seq: int) -> None:
    transaction.on_commit(lambda: send_changed(game_id, seq))
