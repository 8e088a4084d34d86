"""Start-up checks: a bad or unreachable setting stops the process with one line naming it."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NoReturn

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections


class ServiceUnavailable(RuntimeError):
    pass


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise SystemExit(2)


def load_settings_or_exit[T](load: Callable[[], T]) -> T:
    """Run ``load`` (which imports settings); a configuration error becomes one line and exit 2."""
    try:
        return load()
    except ImproperlyConfigured as error:
        fail(str(error))


def check_database() -> None:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ServiceUnavailable(f"DATABASE_URL: cannot connect to the database ({first})") from None


def check_redis() -> None:
    if not settings.REDIS_URL:
        return
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as error:
        raise ServiceUnavailable(f"REDIS_URL: cannot reach Redis at {settings.REDIS_URL} ({error})") from None


def check_services() -> None:
    check_database()
    check_redis()


def check_services_or_exit() -> None:
    try:
        off_the_event_loop(check_services)
    except ServiceUnavailable as error:
        fail(str(error))


def off_the_event_loop[T](func: Callable[[], T]) -> T:
    """Run ``func`` (blocking, ORM) here, or in a thread when this thread runs an event loop: some
    servers (uvicorn workers) import the ASGI application from inside their loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return func()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(func).result()


def freeze_what_start_up_made() -> None:
    """Import every view now (Django loads the URLconf on the first request otherwise), then move
    every object made so far into the garbage collector's permanent generation.

    A server process holds a few hundred thousand objects from its imports (Django, pydantic
    models, numpy) that live as long as it does. Left in the collector's view, each full
    collection walks all of them again: under load (500 games) that was a 250-300 ms pause of the
    worker's event loop every ten seconds or so, which every game waiting on that worker felt.
    Frozen, a full collection walks only what the games made since (reference counting still
    frees frozen objects; only a cycle among them would never be collected, and start-up's
    objects live for the whole process anyway)."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 -- imports every view module
    gc.collect()
    gc.freeze()
