"""Who is connected: each open websocket of a seat is a row owned by the server process holding it.

Counting connections on the seat breaks when a process dies (kill -9, out of memory): nobody
decrements its counts. Here each process registers itself (``ServerProcess``), says it is alive
every ``HEARTBEAT_SECONDS`` from its scheduler loop, and owns its ``SeatConnection`` rows. A
process silent for ``STALE_SECONDS`` is dead: ``reap`` removes it with its rows and returns the
games that lost a connection, for the disconnect policy. A single-process server (``make run``)
knows at start that any other process is gone and reaps them at once; under ``make serve`` a
restarted worker must not (the other workers are alive), so it waits for their silence.

Each process also remembers its own open connections, so if it was itself taken for dead (a stall
longer than ``STALE_SECONDS``) its next heartbeat puts them back.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games.models import SeatConnection, ServerProcess

SERVER_ID = uuid.uuid4().hex
HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0
# Set by arena_site.serve for its workers: other processes share this database and are alive.
SHARED_ENV = "ARENA_SERVE_WORKERS"

_lock = threading.Lock()
_open: Counter[tuple[int, int]] = Counter()
_last_beat = [0.0]


def single_process() -> bool:
    return os.environ.get(SHARED_ENV, "1") == "1"


def register(now: datetime | None = None) -> None:
    now = now or timezone.now()
    ServerProcess.objects.update_or_create(id=SERVER_ID, defaults={"started_at": now, "seen_at": now})
    _last_beat[0] = time.monotonic()


def opened(game_id: int, agent: int, now: datetime | None = None) -> None:
    now = now or timezone.now()
    with _lock:
        _open[(game_id, agent)] += 1
    if not ServerProcess.objects.filter(id=SERVER_ID).update(seen_at=now):
        register(now)
    SeatConnection.objects.create(game_id=game_id, agent=agent, server_id=SERVER_ID, opened_at=now)


def closed(game_id: int, agent: int) -> None:
    with _lock:
        _open[(game_id, agent)] -= 1
        if _open[(game_id, agent)] <= 0:
            del _open[(game_id, agent)]
    mine = SeatConnection.objects.filter(game_id=game_id, agent=agent, server_id=SERVER_ID)
    first = mine.values_list("pk", flat=True).first()
    if first is not None:
        SeatConnection.objects.filter(pk=first).delete()


def heartbeat(now: datetime | None = None, *, force: bool = False) -> bool:
    """Say this process is alive (at most every ``HEARTBEAT_SECONDS`` unless ``force``); True
    when it did. A process found reaped re-registers with the connections it still holds."""
    if not force and time.monotonic() - _last_beat[0] < HEARTBEAT_SECONDS:
        return False
    now = now or timezone.now()
    _last_beat[0] = time.monotonic()
    if ServerProcess.objects.filter(id=SERVER_ID).update(seen_at=now):
        return True
    with transaction.atomic():
        register(now)
        with _lock:
            held = list(_open.elements())
        SeatConnection.objects.bulk_create(
            SeatConnection(game_id=game, agent=agent, server_id=SERVER_ID, opened_at=now) for game, agent in held
        )
    return True


def reap(now: datetime | None = None, *, everyone_else: bool = False) -> set[int]:
    """Forget dead processes (silent for ``STALE_SECONDS``, or every other one) and their
    connections; returns the games that lost one."""
    now = now or timezone.now()
    dead = ServerProcess.objects.exclude(id=SERVER_ID)
    if not everyone_else:
        dead = dead.filter(seen_at__lt=now - timedelta(seconds=STALE_SECONDS))
    with transaction.atomic():
        ids = list(dead.values_list("id", flat=True))
        if not ids:
            return set()
        games = set(SeatConnection.objects.filter(server_id__in=ids).values_list("game_id", flat=True))
        ServerProcess.objects.filter(id__in=ids).delete()  # their connections go with them
    return games


def connected_agents(game_id: int) -> set[int]:
    return set(SeatConnection.objects.filter(game_id=game_id).values_list("agent", flat=True))


def forget_local() -> None:
    """Tests: this process holds no connection."""
    with _lock:
        _open.clear()
