"""Creating and checking API tokens (``Authorization: Token <token>``)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import ApiToken

# "Token" (Django REST framework's word) or "Bearer" (RFC 6750, what most HTTP clients send).
HEADER_PREFIXES = ("token ", "bearer ")


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(user: Any, name: str = "") -> str:
    """Make a token for ``user`` and return it; only its digest is kept."""
    raw = secrets.token_hex(20)
    ApiToken.objects.create(user=user, name=name, prefix=raw[:8], digest=_digest(raw))
    return raw


def user_for_token(raw: str | None) -> Any | None:
    """The active user owning ``raw``, or None."""
    if not raw:
        return None
    token = ApiToken.objects.select_related("user").filter(digest=_digest(raw.strip()), revoked=False).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user


def token_from_header(value: str | bytes | None) -> str | None:
    """The token in an ``Authorization: Token <token>`` (or ``Bearer <token>``) header value, or None."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    prefix = next((p for p in HEADER_PREFIXES if text.lower().startswith(p)), None)
    if prefix is None:
        return None
    return text[len(prefix) :].strip() or None


def user_for_request_header(value: str | bytes | None) -> Any | None:
    return user_for_token(token_from_header(value))


# Where a program's author gets a token (docs/api.md, Authentication).
WHERE_TOKENS_ARE_MADE = (
    "a researcher makes one on the site's API tokens page, /accounts/tokens/; "
    "for other accounts an administrator runs manage.py create_api_token USERNAME"
)


def refusal(header: str | bytes | None) -> str:
    """Why the ``Authorization`` header ``header`` signs nobody in, in words for a 401: no token, one
    the site does not know, a revoked one, or one whose account is deactivated."""
    raw = token_from_header(header)
    if raw is None:
        return f"send your API token as 'Authorization: Token <token>' ({WHERE_TOKENS_ARE_MADE})"
    token = ApiToken.objects.select_related("user").filter(digest=_digest(raw.strip())).first()
    if token is None:
        return f"this API token is not one the site knows (was it copied whole?); {WHERE_TOKENS_ARE_MADE}"
    if token.revoked:
        return f"this API token ({token.prefix}…) was revoked; make a new one: {WHERE_TOKENS_ARE_MADE}"
    if not token.user.is_active:
        return f"this API token's account ({token.user.get_username()}) is deactivated"
    return "this API token signs nobody in"


def get_user_by_name(username: str) -> Any:
    return get_user_model().objects.get(username=username)
