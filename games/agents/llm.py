"""One call to any OpenAI-compatible chat endpoint (hosted APIs, vLLM, Ollama, llama.cpp's server).

``LlmClient(...).chat(messages)`` never raises for endpoint trouble: a timeout, a refused
connection or an HTTP error comes back as ``LlmReply.error`` so callers (the NPC dispatcher, the
benchmark runner, annotation pre-labelling) can log the failure and carry on. The reply text is
only ever *parsed*, never executed.

Configuration comes from the site's configured endpoints (``games.agents.endpoints``: each an id,
a URL, its own key and the models it allows) plus ``LLM_TEMPERATURE`` and ``LLM_TIMEOUT_SECONDS``;
a study condition or benchmark run picks an endpoint and model by name through
``LlmConfig.from_settings({"endpoint": ..., "model": ...})``. A URL or key in those settings is
refused, so the site's keys only ever go to the URLs configured next to them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

Message = Mapping[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}

DEFAULT_MAX_TOKENS = 256
# The two ways an endpoint is asked for JSON of a schema (``response_format``), tried in this order.
SCHEMA_STYLES = ("json_schema", "json_object")
# (base_url, model) -> the style of SCHEMA_STYLES that endpoint took, once one has (for this process)
SPOKEN_STYLES: dict[tuple[str, str], str] = {}
REFUSED_FORMAT = (400, 422)  # the statuses with which an endpoint refuses a response format it does not know


@dataclass(frozen=True, slots=True)
class LlmConfig:
    base_url: str
    model: str
    api_key: str = "not-needed"
    temperature: float = 0.0
    timeout_seconds: float = 20.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    endpoint: str = ""  # the configured endpoint's id ("" for a client built by hand)

    @classmethod
    def from_settings(cls, overrides: Mapping[str, Any] | None = None) -> LlmConfig:
        """The configured endpoint named in ``overrides`` (``endpoint``, ``model``, ``temperature``,
        ``max_tokens``, ``timeout_seconds``; other keys are ignored so a condition's JSON may carry
        prompt options too). Raises ``endpoints.EndpointError`` for an unknown endpoint, a model it
        does not allow, an out-of-range number, or any URL or key."""
        from django.conf import settings

        from games.agents import endpoints

        chosen = endpoints.check(overrides or {})
        endpoint = endpoints.get(chosen["endpoint"])
        return cls(
            base_url=endpoint.base_url,
            model=chosen["model"],
            api_key=endpoint.api_key,
            temperature=float(chosen.get("temperature", settings.LLM_TEMPERATURE)),
            timeout_seconds=float(chosen.get("timeout_seconds", settings.LLM_TIMEOUT_SECONDS)),
            max_tokens=int(chosen.get("max_tokens", DEFAULT_MAX_TOKENS)),
            endpoint=endpoint.id,
        )

    def with_overrides(self, overrides: Mapping[str, Any] | None) -> LlmConfig:
        """Tuning changes only (model, temperature, max_tokens, timeout): the URL and key stay
        together, so a key can never be pointed at another URL this way."""
        if not overrides:
            return self
        keys = ("model", "temperature", "timeout_seconds", "max_tokens")
        known = {key: overrides[key] for key in keys if overrides.get(key) not in (None, "")}
        for key in ("temperature", "timeout_seconds"):
            if key in known:
                known[key] = float(known[key])
        if "max_tokens" in known:
            known["max_tokens"] = int(known["max_tokens"])
        return replace(self, **known)

    def public(self) -> dict[str, Any]:
        """The configuration without the key (for logs and result pages)."""
        data = asdict(self)
        data.pop("api_key")
        return data


@dataclass(frozen=True, slots=True)
class LlmReply:
    text: str
    latency_seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str = ""
    model: str = ""
    cached: bool = False  # answered from the response cache (games.npc.llm_cache), not the model
    # the endpoint asked, as ``public_address`` writes it: the call log's base_url (a failed call's
    # error named the URL while the log's column stood empty)
    base_url: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class LlmClient:
    """A thin wrapper over ``openai.OpenAI`` that measures latency and turns failures into data.

    Retries are off by default: a late answer is useless to a real-time game (the NPC idles that
    step). Benchmarks pass ``max_retries`` so a 429 or 5xx is retried with the openai client's capped
    exponential backoff (honouring ``Retry-After``); what still fails is recorded, not hidden.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str = "not-needed",
        temperature: float = 0.0,
        timeout_seconds: float = 20.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        *,
        config: LlmConfig | None = None,
        max_retries: int = 0,
    ) -> None:
        if config is None:
            if not base_url or not model:
                raise ValueError("LlmClient needs base_url and model (or config=LlmConfig.from_settings())")
            config = LlmConfig(base_url, model, api_key or "not-needed", temperature, timeout_seconds, max_tokens)
        self.config = config
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "not-needed",
            timeout=config.timeout_seconds,
            max_retries=max_retries,
        )

    @classmethod
    def from_settings(cls, overrides: Mapping[str, Any] | None = None) -> LlmClient:
        return cls(config=LlmConfig.from_settings(overrides))

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
        json_schema: Mapping[str, Any] | None = None,
    ) -> LlmReply:
        """One chat completion. With ``json_schema`` the endpoint is asked for a reply that is JSON of
        that shape (an object at its root): OpenAI, vLLM, Ollama and llama.cpp's own server take
        OpenAI's ``json_schema`` response format; llama-cpp-python's server refuses it (an HTTP 500
        naming ``response_format``) and takes the schema inside ``json_object`` instead, so on such
        a refusal (or an HTTP 400 or 422) the request is made once more that way, and the process
        remembers which way the endpoint speaks (``SPOKEN_STYLES``: a game's NPCs make a client per
        decision, and asked twice every time)."""
        started = time.perf_counter()
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "max_tokens": max_tokens or self.config.max_tokens,
            "temperature": self.config.temperature if temperature is None else temperature,
            "stop": list(stop) if stop else None,
        }
        if json_schema is None:
            return self._ask(request, started)[0]
        endpoint = (self.config.base_url, self.config.model)
        known = SPOKEN_STYLES.get(endpoint)
        styles = (known,) if known else SCHEMA_STYLES
        reply = LlmReply("", 0.0)
        for style in styles:
            reply, status = self._ask(request, started, response_format(style, json_schema))
            if not refused_format(status, reply.error):
                if reply.ok:
                    SPOKEN_STYLES[endpoint] = style
                return reply
        return reply

    def _ask(
        self, request: dict[str, Any], started: float, response_format: dict[str, Any] | None = None
    ) -> tuple[LlmReply, int]:
        """The reply, and the HTTP status with which the endpoint refused the request (0 if it did not)."""
        reply, status = self._request(request, started, response_format)
        return replace(reply, base_url=public_address(self.config.base_url)), status

    def _request(
        self, request: dict[str, Any], started: float, response_format: dict[str, Any] | None
    ) -> tuple[LlmReply, int]:
        model = self.config.model
        try:
            response = self._client.chat.completions.create(
                **request,
                extra_body={"response_format": response_format} if response_format else None,
            )
        except openai.APITimeoutError:
            return LlmReply(
                "", time.perf_counter() - started, error=f"timeout after {self.config.timeout_seconds:g} s", model=model
            ), 0
        except openai.APIConnectionError as error:
            return LlmReply(
                "", time.perf_counter() - started, error=f"cannot reach {self.config.base_url}: {error}", model=model
            ), 0
        except openai.APIStatusError as error:
            return LlmReply(
                "", time.perf_counter() - started, error=f"HTTP {error.status_code}: {error.message}", model=model
            ), error.status_code
        except openai.OpenAIError as error:
            return LlmReply("", time.perf_counter() - started, error=f"{type(error).__name__}: {error}", model=model), 0
        latency = time.perf_counter() - started
        usage = response.usage
        choices = response.choices or []
        text = (choices[0].message.content or "") if choices else ""
        return LlmReply(
            text=text,
            latency_seconds=latency,
            prompt_tokens=int(usage.prompt_tokens) if usage else 0,
            completion_tokens=int(usage.completion_tokens) if usage else 0,
            error="" if choices else "the endpoint returned no choices",
            model=model,
        ), 0


def public_address(url: str) -> str:
    """An endpoint's URL as logs and exports keep it: no user name or password in it, no query (a
    key can ride in either); the key itself is never stored anywhere."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def refused_format(status: int, error: str) -> bool:
    """Whether an endpoint's error reads as a refusal of the response format asked for."""
    return status in REFUSED_FORMAT or (status >= 400 and "response_format" in error)


def response_format(style: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response_format`` asking for JSON of ``schema``, in one of the two ways endpoints speak."""
    if style == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": dict(schema), "strict": True}}
    return {"type": "json_object", "schema": dict(schema)}


PROBE_TIMEOUT_SECONDS = 30.0


def probe(config: LlmConfig, timeout_seconds: float = PROBE_TIMEOUT_SECONDS) -> str:
    """Ask the endpoint for a one-token answer before work that depends on it starts (a study
    opening, a benchmark run): "" when it answers, else why not (the client's message)."""
    client = LlmClient(config=config.with_overrides({"timeout_seconds": timeout_seconds}))
    return client.chat([{"role": "user", "content": "Reply with OK."}], max_tokens=1).error


def unanswered(config: LlmConfig, why: str, *, another: bool = True) -> str:
    """What to tell a researcher whose endpoint did not answer a ``probe``: which one, and what to do
    (``another``: whether they may choose another endpoint where they are)."""
    return (
        f"the LLM endpoint “{config.endpoint or 'default'}” ({config.base_url}, model {config.model}) did not "
        f"answer: {why.rstrip('.')}. Start that model server (make run serves the bundled one once "
        "scripts/test-tools.sh has installed it)" + (" or choose another endpoint" if another else "")
    )
