"""Telling a game's viewers that it changed, only after the change is committed.

The message carries no state: each connection re-reads what *its* viewer may see (per-viewer
rendering), from the committed log, so a lost or late message never loses an event.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def group_name(game_id: int) -> str:
    return f"game.{game_id}"


def send_changed(game_id: int, seq: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(game_id), {"type": "game.changed", "game": game_id, "seq": seq})
    except Exception:
        # The change is committed; viewers catch up on their next message or sync.
        log.exception("could not broadcast game %s seq %s", game_id, seq)


def announce_on_commit(game_id: int, seq: int) -> None:
    transaction.on_commit(lambda: send_changed(game_id, seq))
