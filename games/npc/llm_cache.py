"""Model responses stored in the database, so a benchmark re-run costs nothing and replays exactly.

A response is found again by a hash of everything that decides it: the endpoint (its configured id,
or its URL for a hand-built client), the model, the messages as sent, the sampling settings
(temperature, max_tokens, stop), the JSON schema asked for (if any), the episode's seed and
attempt, and the *occurrence*: the n-th time the same request was made within the episode. The
occurrence keeps a sampled model (temperature above 0) honest: two identical prompts in one episode
may have had different answers, and a replay gives each its own. The attempt keeps repeats
(``--repeats k``) independent samples rather than k copies of the first.

Failed calls are never stored (a re-run tries them again). Benchmarks use the cache unless the run
says ``cache: false`` (``--no-cache``); live games and studies never do unless a seat's settings ask
(``{"cache": true}``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction

from games.agents.llm import LlmClient, LlmConfig, LlmReply, Message, public_address
from games.npc import limits
from games.npc.models import LlmResponse


def endpoint_id(config: LlmConfig) -> str:
    """The configured endpoint's id when the config has one, else its URL."""
    return str(getattr(config, "endpoint", "") or config.base_url.rstrip("/"))


def request_key(request: Mapping[str, Any]) -> str:
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class CachingClient:
    """An ``LlmClient`` look-alike for one episode: answers from the cache when it can, and holds
    one of the endpoint's concurrency slots (``games.npc.limits``) while it asks the model.

    ``calls`` counts the requests that reached the model; ``hits`` the ones answered from the
    database.
    """

    def __init__(self, client: LlmClient, *, seed: int = 0, attempt: int = 0, enabled: bool = True) -> None:
        self.client = client
        self.config = client.config
        self.seed = seed
        self.attempt = attempt
        self.enabled = enabled
        self.calls = 0
        self.hits = 0
        self._seen: Counter[str] = Counter()

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
        json_schema: Mapping[str, Any] | None = None,
    ) -> LlmReply:
        config = self.config
        request: dict[str, Any] = {
            "endpoint": endpoint_id(config),
            "model": config.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "max_tokens": max_tokens or config.max_tokens,
            "temperature": config.temperature if temperature is None else temperature,
            "stop": list(stop or []),
            "seed": self.seed,
            "attempt": self.attempt,
        }
        if json_schema is not None:  # only then, so the keys of requests without one stay as they were
            request["json_schema"] = json_schema
        base = request_key(request)
        occurrence = self._seen[base]
        self._seen[base] += 1
        key = request_key({"request": base, "occurrence": occurrence})
        if self.enabled:
            started = time.perf_counter()
            found = LlmResponse.objects.filter(key=key).first()
            if found is not None:
                self.hits += 1
                LlmResponse.objects.filter(pk=found.pk).update(hits=found.hits + 1)
                return LlmReply(
                    text=found.text,
                    latency_seconds=time.perf_counter() - started,
                    prompt_tokens=found.prompt_tokens,
                    completion_tokens=found.completion_tokens,
                    model=found.model,
                    cached=True,
                    base_url=public_address(config.base_url),
                )
        self.calls += 1
        with limits.endpoint_slot(request["endpoint"]):
            reply = self.client.chat(
                messages, max_tokens=max_tokens, temperature=temperature, stop=stop, json_schema=json_schema
            )
        if self.enabled and reply.ok:
            try:
                with transaction.atomic():
                    LlmResponse.objects.create(
                        key=key,
                        endpoint=request["endpoint"][:300],
                        model=config.model[:200],
                        request={**request, "occurrence": occurrence},
                        text=reply.text,
                        prompt_tokens=reply.prompt_tokens,
                        completion_tokens=reply.completion_tokens,
                        latency_seconds=reply.latency_seconds,
                    )
            except IntegrityError:
                pass  # another worker stored the same request meanwhile: keep the first answer
        return reply
