"""At most ``LLM_CONCURRENCY`` model calls in flight per endpoint, across threads and workers.

Parallel benchmark episodes would otherwise hit one endpoint with as many requests as there are
workers; a provider answers that with 429s and a local server with a queue. A slot is held for the
whole call, retries and their backoff included, so a rate-limited endpoint sees fewer requests,
not more.

With ``REDIS_URL`` the slots live in Redis (a sorted set per endpoint, taken and released
atomically by a Lua script; a slot a crashed worker never gave back expires after ``SLOT_TTL``
seconds), so every worker process shares one limit. Without it (the embedded default, one process)
a semaphore per endpoint does.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

SLOT_TTL = 900.0  # longer than any call with its retries (timeout 300 s at most, 4 retries of ~8 s)
POLL_SECONDS = 0.05

_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])))
  return 1
end
return 0
"""

_local_lock = threading.Lock()
_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_redis: Any = None


def limit() -> int:
    return max(1, int(getattr(settings, "LLM_CONCURRENCY", 4)))


@contextmanager
def endpoint_slot(endpoint: str) -> Iterator[None]:
    """Wait for one of the endpoint's slots, hold it for the block, give it back."""
    if getattr(settings, "REDIS_URL", None):
        with _redis_slot(endpoint):
            yield
        return
    with _local_lock:
        semaphore = _semaphores.setdefault((endpoint, limit()), threading.BoundedSemaphore(limit()))
    with semaphore:
        yield


def _client() -> Any:
    global _redis
    if _redis is None:
        import redis

        url = settings.REDIS_URL
        if not url:
            raise RuntimeError("limits across processes need REDIS_URL")
        _redis = redis.Redis.from_url(url)
    return _redis


@contextmanager
def _redis_slot(endpoint: str) -> Iterator[None]:
    client = _client()
    key = f"arena:llm-slots:{endpoint}"
    token = uuid.uuid4().hex
    acquire = client.register_script(_ACQUIRE)
    while not acquire(keys=[key], args=[time.time(), SLOT_TTL, limit(), token]):
        time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        client.zrem(key, token)
