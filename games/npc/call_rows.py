"""The one way an LLM call becomes a stored ``LlmCall`` row (web NPC turns and benchmark runs)."""

from __future__ import annotations

from typing import Any

from games.agents.turns import CallRecord
from games.npc.models import LlmCall


def call_row(call: CallRecord, *, model: str = "", **where: Any) -> LlmCall:
    """The prompt, the reply, what was read from it, timing and tokens; ``where`` says what the call
    belongs to (``game=...`` with its seats and moment, or ``result=...`` of a benchmark).
    ``model``: the configured model, for a reply that does not name one. ``base_url`` is the
    endpoint the reply came from unless ``where`` names one."""
    base_url = where.pop("base_url", "") or call.reply.base_url
    return LlmCall(
        agent=call.agent,
        base_url=base_url,
        model=call.reply.model or model,
        messages=[dict(m) for m in call.messages],
        reply=call.reply.text,
        parsed=list(call.parsed),
        problems=list(call.problems),
        latency_seconds=call.reply.latency_seconds,
        prompt_tokens=call.reply.prompt_tokens,
        completion_tokens=call.reply.completion_tokens,
        error=call.reply.error,
        **where,
    )
