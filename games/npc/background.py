"""Running NPC work off the game loop.

With ``REDIS_URL`` the work goes to Celery workers. In the embedded default (Celery eager, no
broker) it runs in a daemon thread, so a websocket consumer or a page that triggered it returns at
once and the game clock never waits for a model. ``NPC_RUN_INLINE = True`` (tests, headless
commands) runs it in the caller, which is deterministic.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections

log = logging.getLogger(__name__)


def submit(task: Any, *args: Any, countdown: float = 0.0) -> None:
    """Run Celery ``task`` with ``args`` soon, never in the caller's event loop."""
    if getattr(settings, "NPC_RUN_INLINE", False):
        task.run(*args)
        return
    if settings.CELERY_TASK_ALWAYS_EAGER:
        _thread(task.run, args, countdown)
        return
    task.apply_async(args=args, countdown=countdown or None)


def _thread(func: Callable[..., Any], args: tuple[Any, ...], countdown: float) -> None:
    def target() -> None:
        close_old_connections()
        try:
            func(*args)
        except Exception:
            log.exception("background NPC work %s%s failed", getattr(func, "__name__", func), args)
        finally:
            connections.close_all()

    worker = threading.Timer(countdown, target) if countdown > 0 else threading.Thread(target=target)
    worker.daemon = True
    worker.start()
