"""Context for the server-rendered live fragments (filled in with the browser UI)."""

from __future__ import annotations

from typing import Any


def live_context(update: Any, who: Any, *, full: bool) -> dict[str, Any]:
    return {"update": update, "viewer": who, "full": full}
