"""The address a request came from, as sign-in throttling and resume-code checks count it.

Without a proxy it is the connection's (``REMOTE_ADDR``). Behind ``TRUSTED_PROXIES`` proxies, each
of which appends the address it was connected from to ``X-Forwarded-For`` (nginx's
``$proxy_add_x_forwarded_for``), it is the entry that many places from the right: the one the
outermost trusted proxy saw. Entries further left were written by the client and are ignored (a
client naming any address it likes must not reset its own count). A header shorter than the
proxies, or an entry that is not an address, falls back to the connection's address.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    remote = str(request.META.get("REMOTE_ADDR", ""))
    proxies = int(getattr(settings, "TRUSTED_PROXIES", 0))
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
    forwarded = [part for part in forwarded if part]
    if len(forwarded) < proxies:
        return remote
    candidate = forwarded[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
