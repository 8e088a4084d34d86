"""The one loop that applies what comes due by itself in real-time games (completions, arrivals,
time limits) when nobody touches the game: it sleeps until the earliest ``next_deadline_at``.

Two ways to run it (several at once are safe: each game is advanced under a row lock, and locked
games are skipped):

- embedded (default, ``GAMES_SCHEDULER=embedded``): an asyncio task in each ASGI process, started
  by the first request or websocket connection (``ensure_embedded``).
- external (``GAMES_SCHEDULER=external``): ``manage.py run_scheduler`` as its own process; the
  ASGI processes' loop then only keeps their presence. ``GAMES_SCHEDULER=off`` runs none (tests).

The same loop keeps the process's presence (``games.presence``): a heartbeat, and forgetting dead
processes with their seat connections, which applies the disconnect policy (a real-time game
whose human is gone pauses until they reconnect). A single-process server does that at start.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from datetime import datetime

from asgiref.sync import sync_to_async
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2  # the longest sleep: games changed by other processes are picked up this fast
HOUSEKEEPING_SECONDS = 60.0  # how often the loop calls ``hooks.HOUSEKEEPING`` (studies' drop-outs)
_task: asyncio.Task[None] | None = None
_housekeeping_at = 0.0  # time.monotonic() of the last call


def mode() -> str:
    return os.environ.get("GAMES_SCHEDULER", "embedded")


def step(now: datetime | None = None, *, advance: bool = True) -> float:
    """Keep this process's presence and, with ``advance``, advance the due games once; return how
    long to sleep before the next step."""
    from games import services

    close_old_connections()
    try:
        check_presence(now)
        if not advance:
            return POLL_SECONDS  # another process advances the games (manage.py run_scheduler)
        services.advance_due(now=now)
        next_at = services.next_due_at()
    finally:
        close_old_connections()
    if next_at is None:
        return POLL_SECONDS
    return min(POLL_SECONDS, max(0.0, (next_at - timezone.now()).total_seconds()))


def check_presence(now: datetime | None = None) -> int:
    """Say this process is alive, forget processes that died, apply the disconnect policy to the
    games that lost a connection with them, hand the seats of people away too long to their
    backfill NPC, and about once a minute call ``hooks.HOUSEKEEPING``; returns how many games paused."""
    from games import presence, services

    if not presence.heartbeat(now):
        return 0
    paused = sum(services.apply_disconnect_policy(game_id, now=now) for game_id in presence.reap(now))
    services.backfill_due(now=now)
    housekeeping(now)
    return paused


def housekeeping(now: datetime | None = None, *, force: bool = False) -> bool:
    """Call ``hooks.HOUSEKEEPING`` once every ``HOUSEKEEPING_SECONDS`` (or now, ``force``); whether it ran."""
    global _housekeeping_at
    from games import hooks

    moment = time.monotonic()
    if not force and _housekeeping_at and moment - _housekeeping_at < HOUSEKEEPING_SECONDS:
        return False
    _housekeeping_at = moment
    hooks.call(hooks.HOUSEKEEPING, now or timezone.now())
    return True


def recover_after_restart() -> int:
    """At start: register this process; a single-process server also forgets every other process
    at once (they cannot be alive) and pauses the real-time games whose human is gone until they
    reconnect. Several workers wait for a dead one's silence instead (``check_presence``)."""
    from games import presence, services

    presence.register()
    if not presence.single_process():
        return 0
    return sum(services.apply_disconnect_policy(game_id) for game_id in presence.reap(everyone_else=True))


async def run_embedded() -> None:
    while True:
        try:
            delay = await sync_to_async(step, thread_sensitive=False)(advance=mode() == "embedded")
        except Exception:
            log.exception("scheduler step failed; retrying")
            delay = 1.0
        await asyncio.sleep(delay)


def ensure_embedded() -> None:
    """Start the embedded loop in this process's event loop, once (with ``GAMES_SCHEDULER=external``
    it only keeps this process's presence; ``off`` runs nothing)."""
    global _task
    if mode() == "off":
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    if _task is not None and not _task.done() and _task.get_loop() is loop:
        return
    _task = loop.create_task(run_embedded(), name="games-scheduler")


def start_process() -> None:
    """Called once when an ASGI process starts (arena_site/asgi.py), before it serves anyone."""
    if mode() == "off":
        return
    try:
        paused = recover_after_restart()
    except DatabaseError as error:  # not migrated yet: nothing to recover
        log.warning("scheduler recovery skipped: %s", error)
        return
    if paused:
        log.info("paused %d real-time game(s) until their players reconnect", paused)
    resumed = resume_background_work()
    if resumed:
        log.info("queued again, cut off when the server stopped: %s", ", ".join(resumed))


def resume_background_work() -> list[str]:
    """A single-process server whose background work (benchmark runs, pre-annotations, study
    exports) runs in its own threads picks up, at start, the work it was doing when it stopped
    (``arena_site.background.on_restart``); several processes cannot tell another's work from a
    dead one's, and leave it."""
    from arena_site import background
    from games import presence

    if not presence.single_process():
        return []
    return background.resume_cut_off()


def run_forever(*, stop_after: float | None = None) -> None:
    """The external scheduler's loop (``manage.py run_scheduler``)."""
    started = time.monotonic()
    while stop_after is None or time.monotonic() - started < stop_after:
        try:
            delay = step()
        except Exception:
            log.exception("scheduler step failed; retrying")
            delay = 1.0
        time.sleep(delay)


class EmbeddedSchedulerMiddleware:
    """ASGI wrapper that starts the embedded scheduler with the first request or connection."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    async def __call__(self, scope: dict, receive: object, send: object) -> object:
        if scope.get("type") in ("http", "websocket"):
            ensure_embedded()
        return await self.inner(scope, receive, send)  # type: ignore[operator]
