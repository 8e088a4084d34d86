"""The LLM endpoints this site may call, each with its own key: the only place URLs and keys live.

A seat, a study condition, a benchmark run or a pre-annotation job names an endpoint by its ``id``
(and a model that endpoint allows); it never carries a URL or a key. The key of an endpoint is
therefore only ever sent to the URL configured next to it, whoever wrote the settings.

Configuration (Django settings, from the environment, see ``.env.example``):

- ``LLM_BASE_URL`` / ``LLM_MODEL`` / ``LLM_API_KEY`` (and ``LLM_MODELS``, a comma list) are the
  endpoint ``default``.
- ``LLM_ENDPOINTS`` is a JSON list of more endpoints::

    [{"id": "openai", "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY",
      "models": ["gpt-4o-mini", "gpt-4o"], "label": "OpenAI"}]

  ``api_key_env`` names the environment variable that holds the key (so the JSON holds no secret);
  ``api_key`` gives it inline. ``models``: the model names allowed there, the first being the
  default; an empty list allows any name (a local server that serves one model). An entry with id
  ``default`` replaces the one built from ``LLM_BASE_URL``.

Seat settings (``{"endpoint": "openai", "model": "gpt-4o-mini", "temperature": 0.3}``) are checked
by ``config_for``; only researchers may set them (``games.api``, the study and benchmark forms).
Extend here (concurrency limits, prices) rather than reading settings elsewhere.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_ID = "default"
# What a seat or condition may say about its model; anything naming a URL or key is refused.
TUNING_KEYS = ("temperature", "max_tokens", "timeout_seconds")
MODEL_KEYS = ("endpoint", "model", *TUNING_KEYS)
FORBIDDEN_KEYS = ("base_url", "api_key", "api_key_env")
LIMITS: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "max_tokens": (1, 8192),
    "timeout_seconds": (1.0, 300.0),
}


class EndpointError(ValueError):
    """A setting names no configured endpoint, a model it does not allow, or a URL/key."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: str
    base_url: str
    api_key: str = field(default="not-needed", repr=False)
    models: tuple[str, ...] = ()
    label: str = ""

    def allows(self, model: str) -> bool:
        return not self.models or model in self.models

    def default_model(self, site_model: str) -> str:
        return self.models[0] if self.models else site_model

    def public(self) -> dict[str, Any]:
        """Everything but the key (for pages, logs and stored run configurations)."""
        return {"id": self.id, "base_url": self.base_url, "models": list(self.models), "label": self.label or self.id}


def parse(text: str, environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """``LLM_ENDPOINTS`` (JSON) as a list of plain dicts with the key resolved; raises ``EndpointError``
    naming the entry and field at fault (settings call this at start-up, so a typo stops the site)."""
    environ = os.environ if environ is None else environ
    if not text.strip():
        return []
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise EndpointError(f"LLM_ENDPOINTS is not JSON: {error}") from None
    if not isinstance(raw, list):
        raise EndpointError('LLM_ENDPOINTS must be a JSON list like [{"id": "x", "base_url": "http://..."}]')
    entries = []
    for number, entry in enumerate(raw, 1):
        where = f"LLM_ENDPOINTS entry {number}"
        if not isinstance(entry, dict):
            raise EndpointError(f"{where}: must be an object")
        unknown = set(entry) - {"id", "base_url", "api_key", "api_key_env", "models", "label"}
        if unknown:
            raise EndpointError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        ident, url = entry.get("id"), entry.get("base_url")
        if not isinstance(ident, str) or not ident.strip() or len(ident) > 50:
            raise EndpointError(f"{where}: 'id' must be a short name like \"openai\"")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise EndpointError(f"{where} ({ident}): 'base_url' must be an http(s) URL")
        models = entry.get("models") or []
        if not isinstance(models, list) or not all(isinstance(m, str) and m for m in models):
            raise EndpointError(f"{where} ({ident}): 'models' must be a list of model names")
        key = entry.get("api_key")
        if entry.get("api_key_env"):
            key = environ.get(str(entry["api_key_env"]))
            if not key:
                raise EndpointError(f"{where} ({ident}): environment variable {entry['api_key_env']} is not set")
        entries.append(
            {
                "id": ident.strip(),
                "base_url": url,
                "api_key": str(key or "not-needed"),
                "models": models,
                "label": str(entry.get("label") or ""),
            }
        )
    ids = [e["id"] for e in entries]
    if len(set(ids)) != len(ids):
        raise EndpointError("LLM_ENDPOINTS: two entries share an id")
    return entries


def configured() -> dict[str, Endpoint]:
    """Every endpoint, ``default`` first (read from settings on each call, so tests may change them)."""
    from django.conf import settings

    models = tuple(m.strip() for m in str(getattr(settings, "LLM_MODELS", "") or "").split(",") if m.strip())
    found = {
        DEFAULT_ID: Endpoint(
            DEFAULT_ID, settings.LLM_BASE_URL, settings.LLM_API_KEY or "not-needed", models, "Site default"
        )
    }
    for entry in getattr(settings, "LLM_ENDPOINTS", None) or []:
        found[entry["id"]] = Endpoint(
            entry["id"], entry["base_url"], entry.get("api_key") or "not-needed", tuple(entry.get("models") or ()),
            entry.get("label", ""),
        )  # fmt: skip
    return found


def get(endpoint_id: str | None) -> Endpoint:
    endpoints = configured()
    found = endpoints.get(endpoint_id or DEFAULT_ID)
    if found is None:
        raise EndpointError(f"there is no LLM endpoint {endpoint_id!r}; configured: {', '.join(endpoints)}")
    return found


def choices() -> list[tuple[str, str]]:
    """For forms: (id, label with the allowed models)."""
    return [
        (e.id, f"{e.label or e.id} ({', '.join(e.models) if e.models else 'any model'})") for e in configured().values()
    ]


def _number(key: str, value: Any) -> float | int:
    low, high = LIMITS[key]
    if isinstance(value, bool):
        raise EndpointError(f"{key} must be a number from {low:g} to {high:g}")
    try:
        number = int(value) if key == "max_tokens" else float(value)
    except (TypeError, ValueError, OverflowError):
        raise EndpointError(f"{key} must be a number from {low:g} to {high:g}") from None
    if not low <= number <= high:
        raise EndpointError(f"{key} must be a number from {low:g} to {high:g}")
    return number


def check(settings_: Mapping[str, Any]) -> dict[str, Any]:
    """The model part of seat/condition settings, validated: ``{"endpoint", "model", tuning...}``.

    Raises ``EndpointError`` for a URL or key, an unknown endpoint, a model the endpoint does not
    allow, or an out-of-range number. Other keys (prompt options, hints) are left to their owners.
    """
    from django.conf import settings

    secrets = [key for key in ("api_key", "api_key_env") if settings_.get(key) not in (None, "")]
    if secrets:
        raise EndpointError(f"settings may not carry {', '.join(secrets)}; name a configured 'endpoint' instead")
    raw = settings_.get("endpoint")
    if raw not in (None, "") and not isinstance(raw, str):
        raise EndpointError("'endpoint' is the id of a configured endpoint (a string)")
    url = settings_.get("base_url")
    if url in (None, ""):
        endpoint = get(raw or None)
    else:
        # A stored run or condition from before endpoints had ids (or a run's public record) may
        # carry the URL: accepted only when it *is* the URL configured for that endpoint.
        url = str(url).rstrip("/")
        match = [e for e in configured().values() if e.base_url.rstrip("/") == url and (not raw or e.id == raw)]
        if not match:
            raise EndpointError("settings name an endpoint by 'endpoint' (its id), never by base_url")
        endpoint = match[0]
    model = settings_.get("model")
    if model in (None, ""):
        model = endpoint.default_model(settings.LLM_MODEL)
    if not isinstance(model, str) or len(model) > 200:
        raise EndpointError("'model' is a model name (a string)")
    if not endpoint.allows(model):
        raise EndpointError(f"endpoint {endpoint.id!r} allows the models {', '.join(endpoint.models)}, not {model!r}")
    checked: dict[str, Any] = {"endpoint": endpoint.id, "model": model}
    for key in TUNING_KEYS:
        if settings_.get(key) not in (None, ""):
            checked[key] = _number(key, settings_[key])
    return checked


def has_model_settings(settings_: Mapping[str, Any]) -> bool:
    """Does a seat's settings choose anything about the model (which only researchers may)?"""
    nested = settings_.get("llm")
    keys = (*MODEL_KEYS, *FORBIDDEN_KEYS)
    return isinstance(nested, Mapping) or "llm" in settings_ or any(key in settings_ for key in keys)
