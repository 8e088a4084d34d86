"""Websocket authentication: browsers by their session cookie, programs by an API token.

A program sends ``Authorization: Token <token>`` with the handshake (or ``?token=`` for clients
that cannot set headers). The token user replaces the session user for that connection.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from accounts.tokens import token_from_header, user_for_token


class TokenAuthMiddleware:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        raw = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                raw = token_from_header(value)
        if raw is None:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            raw = (query.get("token") or [None])[0]
        if raw:
            user = await database_sync_to_async(user_for_token)(raw)
            scope = dict(scope)
            scope["token_user"] = user
            if user is not None:
                scope["user"] = user
        return await self.inner(scope, receive, send)


class OriginCheck:
    """Browsers always send ``Origin``: it must match ALLOWED_HOSTS (stops cross-site websocket
    hijacking). Programs send no Origin; they are let through only with a token, which the
    consumer then verifies."""

    def __init__(self, inner: Any) -> None:
        from channels.security.websocket import AllowedHostsOriginValidator

        self.inner = inner
        self.browser = AllowedHostsOriginValidator(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        if b"origin" in headers:
            return await self.browser(scope, receive, send)
        has_token = b"authorization" in headers or b"token=" in scope.get("query_string", b"")
        if has_token:
            return await self.inner(scope, receive, send)
        from channels.security.websocket import WebsocketDenier

        return await WebsocketDenier()(scope, receive, send)
