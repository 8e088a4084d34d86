"""What every domain's LLM text interface shares: reading ``Agent N: ...`` lines and refusing
commands for agents the reply may not command. Each domain's own grammar lives in its package and
its descriptor names it (``Domain.text``); ``games.agents.extraction`` calls it.

A domain's text interface is ``extract_reply(reply, agents, legal, state) -> (commands, problems)``
with ``commands`` a list of ``(agent, action text)`` in the reply's order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

AGENT_PREFIX = re.compile(
    r"^\s*(?:[-*•]\s*|\d+[.)]\s*)?(?:\*\*)?\s*(?:agent|npc)\s*#?\s*(\d+)\s*(?:\*\*)?\s*[:=\-–>]+\s*(.*)$", re.I
)

Commands = list[tuple[int, str]]


class ReplyReader(Protocol):
    def __call__(
        self, reply: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], state: Any
    ) -> tuple[Commands, list[str]]: ...


def normalise(text: str) -> str:
    return " ".join(text.strip().lower().split()).strip("`'\"").rstrip(".!;,").strip()


def names(agents: Sequence[int], base: int = 0) -> str:
    return ", ".join(str(a + base) for a in agents) or "(none free)"


def agent_ok(agent: int, agents: Sequence[int], problems: list[str], what: str, base: int = 0) -> bool:
    """True if the reply may command ``agent``; otherwise a problem saying whom it may command."""
    if agent in agents:
        return True
    problems.append(
        f"'{what}': agent {agent + base} is not yours to command now; command only agents {names(agents, base)}"
    )
    return False
