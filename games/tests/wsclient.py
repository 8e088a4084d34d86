"""Helpers to drive the websocket API in tests through the same middleware stack as production."""

from __future__ import annotations

import json
from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from accounts.websocket import OriginCheck, TokenAuthMiddleware
from games.routing import websocket_urlpatterns

APPLICATION = OriginCheck(AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns))))
TIMEOUT = 10


class Client:
    """A program's connection: token auth, JSON frames, and a buffer of everything received."""

    def __init__(self, game_id: int, token: str | None = None, query: str = "", headers: list | None = None):
        path = f"/ws/games/{game_id}/" + (f"?{query}" if query else "")
        all_headers = list(headers or [])
        if token:
            all_headers.append((b"authorization", f"Token {token}".encode()))
        self.communicator = WebsocketCommunicator(APPLICATION, path, headers=all_headers)
        self.received: list[dict[str, Any]] = []

    async def connect(self) -> bool:
        connected, _ = await self.communicator.connect(timeout=TIMEOUT)
        return connected

    async def send(self, payload: dict[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        await self.communicator.send_to(text_data=text)

    async def receive(self) -> dict[str, Any]:
        message = json.loads(await self.communicator.receive_from(timeout=TIMEOUT))
        self.received.append(message)
        return message

    async def receive_until(self, type_: str, **match: Any) -> dict[str, Any]:
        """Read frames until one of ``type_`` (matching ``match``) arrives; return it."""
        while True:
            message = await self.receive()
            if message["type"] == type_ and all(message.get(k) == v for k, v in match.items()):
                return message

    async def state(self) -> dict[str, Any]:
        return await self.receive_until("state")

    async def close(self) -> None:
        await self.communicator.disconnect()
