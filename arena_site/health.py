"""``/healthz``: is the database reachable, and does a message pass through the channel layer?"""

from __future__ import annotations

import asyncio
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from arena_site.startup import ServiceUnavailable, check_database


async def _channel_roundtrip() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), timeout=3)
    if message.get("token") != token:
        raise RuntimeError("channel layer returned a different message")


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    try:
        check_database()
        checks["database"] = "ok"
    except ServiceUnavailable as error:
        checks["database"] = str(error)
    try:
        async_to_sync(_channel_roundtrip)()
        checks["channel_layer"] = "ok"
    except Exception as error:
        checks["channel_layer"] = f"error: {error or type(error).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)
