"""What a game's stored model calls add up to, per agent that asked: how many, how slow, how many
tokens, how many failed and how many commands the rules refused. Read at the top of a game's LLM
calls page, so a researcher sees at a glance whether the NPCs waited on the model or were refused."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from django.db.models import QuerySet

from games.npc.models import LlmCall


@dataclass(frozen=True)
class CallSummary:
    """One row: ``agent`` is who asked (``dispatcher``, ``react/agent 1`` ...) or "all"."""

    agent: str
    calls: int
    failed: int
    refused: int
    median_seconds: float
    slowest_seconds: float
    waited_seconds: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


def _row(agent: str, rows: list[tuple[str, float, int, int, str, list, float]]) -> CallSummary:
    latencies = [row[1] for row in rows]
    return CallSummary(
        agent=agent,
        calls=len(rows),
        failed=sum(1 for row in rows if row[4]),
        refused=sum(len(row[5]) for row in rows if isinstance(row[5], list)),
        median_seconds=statistics.median(latencies),
        slowest_seconds=max(latencies),
        waited_seconds=sum(latencies),
        prompt_tokens=sum(row[2] for row in rows),
        completion_tokens=sum(row[3] for row in rows),
        cost_usd=sum(row[6] for row in rows),
    )


def summarise(calls: QuerySet[LlmCall]) -> list[CallSummary]:
    """One row per agent in the order they first asked, then "all" when more than one asked;
    empty when there are no calls."""
    rows = list(
        calls.order_by("id").values_list(
            "agent", "latency_seconds", "prompt_tokens", "completion_tokens", "error", "problems", "cost_usd"
        )
    )
    by_agent: dict[str, list] = {}
    for row in rows:
        by_agent.setdefault(row[0], []).append(row)
    summary = [_row(agent, agent_rows) for agent, agent_rows in by_agent.items()]
    if len(summary) > 1:
        summary.append(_row("all", rows))
    return summary
