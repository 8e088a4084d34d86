"""Websocket authentication: browsers by their session cookie, programs by an API token.

A program sends ``Authorization: Token <token>`` with the handshake (or ``?token=`` for clients
that cannot set headers). The token user replaces the session user for that connection.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

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


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None]:
    parsed = urlsplit(f"//{netloc}")
    try:
        port = parsed.port
    except ValueError:
        return "", None
    return (parsed.hostname or "").lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def origin_allowed(origin: str, host: str | None, scheme: str) -> bool:
    """Same origin as the page: the Origin's host *and port* are the ones the connection came to
    (``Host``), and that host is in ALLOWED_HOSTS; or the origin is listed in CSRF_TRUSTED_ORIGINS
    (a proxy that rewrites Host). ``channels``' own check compares host names only, so a page
    served on another port of the same machine could open a player's socket."""
    from django.conf import settings
    from django.http.request import validate_host

    parsed = urlsplit(origin)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return False
    if f"{parsed.scheme}://{parsed.netloc}".lower() in {o.lower() for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    origin_host, origin_port = _host_port(parsed.netloc, parsed.scheme)
    if not origin_host or not validate_host(origin_host, settings.ALLOWED_HOSTS):
        return False
    if host is None:  # no Host header (test clients): the origin must be on its scheme's default port
        return origin_port == _DEFAULT_PORTS[parsed.scheme]
    return (origin_host, origin_port) == _host_port(host, scheme)


class OriginCheck:
    """Browsers always send ``Origin``: it must be this site's own origin, port included (stops
    cross-site websocket hijacking). Programs send no Origin; they are let through only with a
    token, which the consumer then verifies."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        from channels.security.websocket import WebsocketDenier

        headers = dict(scope.get("headers", []))
        if b"origin" in headers:
            host = headers.get(b"host")
            origin = headers[b"origin"].decode("latin-1")
            scheme = str(scope.get("scheme") or "ws")
            if origin_allowed(origin, host.decode("latin-1") if host else None, scheme):
                return await self.inner(scope, receive, send)
            return await WebsocketDenier()(scope, receive, send)
        has_token = b"authorization" in headers or b"token=" in scope.get("query_string", b"")
        if has_token:
            return await self.inner(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
