"""Background work: the one way NPC turns, benchmark runs, pre-annotation and study exports leave
the request or the game loop.

A task is named by its Celery name (``"npc.turns"``), so the module that queues work never imports
the task module that runs it: task modules import their runners, never the reverse. Where it runs:

- ``BACKGROUND_INLINE = True`` (tests, headless commands): in the caller, deterministic;
- Celery eager, the embedded default without ``REDIS_URL``: a daemon thread, so the page or websocket
  consumer that asked returns at once and the game clock never waits for a model;
- otherwise a Celery worker, through the broker.

``submit_on_commit`` queues it once the caller's transaction commits (the rows the task reads exist
by then; a rolled-back request queues nothing).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from celery import Task
from django.conf import settings
from django.db import close_old_connections, connections, transaction

from arena_site.celery import app

log = logging.getLogger(__name__)


class UnknownTask(LookupError):
    pass


def task(name: str) -> Task:
    """The registered Celery task ``name``; an unknown name is an error naming the known ones."""
    if name not in app.tasks:
        app.loader.import_default_modules()  # every installed app's tasks module (Celery autodiscovery)
    if name not in app.tasks:
        known = ", ".join(sorted(n for n in app.tasks if not n.startswith("celery.")))
        raise UnknownTask(f"no background task {name!r}; the known ones are {known}")
    return app.tasks[name]


def inline() -> bool:
    if hasattr(settings, "NPC_RUN_INLINE"):
        raise RuntimeError("the setting NPC_RUN_INLINE is now BACKGROUND_INLINE (it covers all background work)")
    return bool(settings.BACKGROUND_INLINE)


def in_this_process() -> bool:
    """Whether submitted work runs in threads of this process (the embedded default, no broker),
    so that it ends when the process does and is this process's to pick up again when it starts."""
    return not inline() and bool(settings.CELERY_TASK_ALWAYS_EAGER)


# (task name, the ids of the work of that task a stopped server cut off, what to call one in a log)
_RESUMABLE: list[tuple[str, Callable[[], Iterable[int]], str]] = []


def on_restart(name: str, cut_off: Callable[[], Iterable[int]], label: str) -> None:
    """Register (in an app's ``ready``) the work of task ``name`` to queue again when a server
    whose work ran in its own threads starts: ``cut_off()`` gives the ids of what was queued or
    under way when it stopped; ``label`` names one in the log ("benchmark run")."""
    if (name, cut_off, label) not in _RESUMABLE:
        _RESUMABLE.append((name, cut_off, label))


def resume_cut_off() -> list[str]:
    """At the start of a server whose background work ran in its own threads (``in_this_process``):
    queue again what was queued or under way when it stopped, as each app registered; returns what
    it queued. With a broker, the work is the workers' and Celery redelivers it instead."""
    if not in_this_process():
        return []
    queued = []
    for name, cut_off, label in list(_RESUMABLE):
        for pk in cut_off():
            submit(name, pk)
            queued.append(f"{label} {pk}")
    return queued


def submit(name: str, *args: Any, countdown: float = 0.0) -> None:
    """Run task ``name`` with ``args`` soon (after ``countdown`` seconds), never in the caller's event loop."""
    work = task(name)
    if inline():
        work.run(*args)
    elif settings.CELERY_TASK_ALWAYS_EAGER:
        _thread(name, work.run, args, countdown)
    else:
        work.apply_async(args=args, countdown=countdown or None)


def submit_on_commit(name: str, *args: Any, countdown: float = 0.0) -> None:
    """``submit`` once the current transaction commits (at once outside a transaction)."""
    task(name)  # an unknown name fails here, in the request, not later in a commit callback
    transaction.on_commit(lambda: submit(name, *args, countdown=countdown))


def to_workers(name: str, *args: Any) -> None:
    """Hand the task to Celery as configured, to spread one run's pieces over every worker (eager
    Celery runs it in place)."""
    task(name).apply_async(args=args)


def _thread(name: str, func: Callable[..., Any], args: tuple[Any, ...], countdown: float) -> None:
    def target() -> None:
        close_old_connections()
        try:
            func(*args)
        except Exception:
            log.exception("background task %s%s failed", name, args)
        finally:
            connections.close_all()

    worker = threading.Timer(countdown, target) if countdown > 0 else threading.Thread(target=target, name=name)
    worker.daemon = True
    worker.start()
