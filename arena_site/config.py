"""Reading the environment into settings values, with one clear error per bad setting.

Kept apart from ``settings.py`` so the parsing rules are testable and the settings module stays a
flat list of values.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false (got {raw!r})")


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number (got {raw!r})") from None


def env_int(name: str, default: int, *, least: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number (got {raw!r})") from None
    if value < least:
        raise ImproperlyConfigured(f"{name} must be {least} or more (got {value})")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...], *, upper: bool = False) -> str:
    """One of ``choices`` (compared in upper case with ``upper``): a typo stops the process naming
    the setting, instead of silently choosing another behaviour."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().upper() if upper else raw.strip()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)} (got {raw!r})")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# SQLite with several threads writing (websocket consumers, the game scheduler, NPC workers):
# IMMEDIATE transactions take the write lock up front and wait for it (up to ``timeout`` seconds)
# instead of failing with "database is locked" when a reader upgrades; WAL lets reads go on
# while one transaction writes.
SQLITE_OPTIONS: dict[str, Any] = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;",
}


def database_config(url: str | None, default_sqlite_path: str) -> dict[str, Any]:
    """DATABASE_URL (postgres:// or sqlite:///path) as Django's DATABASES['default']."""
    if not url:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": default_sqlite_path, "OPTIONS": dict(SQLITE_OPTIONS)}
    scheme = urlparse(url).scheme
    if scheme not in {"postgres", "postgresql", "pgsql", "sqlite"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL has an unsupported scheme {scheme!r}: use postgres://USER@HOST:PORT/NAME or sqlite:///PATH"
        )
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=60))
    except Exception as error:  # dj-database-url raises several types for malformed URLs
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {error}") from None
    if config["ENGINE"].endswith("sqlite3"):
        config["CONN_MAX_AGE"] = 0
        config.setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
    elif not config.get("NAME"):
        raise ImproperlyConfigured("DATABASE_URL names no database: add /NAME at the end")
    return config


def redis_url(url: str | None) -> str | None:
    """REDIS_URL, checked for shape (reachability is checked at start, see startup.py)."""
    if not url:
        return None
    parsed = urlparse(url)
    if parsed.scheme not in {"redis", "rediss"} or not parsed.hostname:
        raise ImproperlyConfigured(f"REDIS_URL must look like redis://HOST:PORT/DB (got {url!r})")
    return url
