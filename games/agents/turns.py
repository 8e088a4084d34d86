"""What an NPC brain is given each turn and what it answers (shared by every kind of agent).

A brain is pure apart from its LLM calls: it reads a ``Turn`` (the rules, the current state, the
agents it must command now, what happened since its last turn, the human's chat messages) and a
JSON ``memory`` dict it may update, and returns a ``Decision``: actions in the domain's text
grammar, the LLM calls it made (for the log), and a sentence for the human (its intention).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from games.agents.llm import LlmReply, Message
from games.engine import registry
from games.engine.rules import RuleSet
from games.engine.types import Event


@dataclass(frozen=True)
class Turn:
    rules: RuleSet[Any]
    state: Any
    agents: Sequence[int]  # NPC agents free to act now; the brain commands only these
    events: Sequence[Event] = ()  # engine events since this brain's previous turn (all agents)
    chat: Sequence[str] = ()  # the human's messages since the previous turn

    @property
    def now(self) -> float:
        return self.rules.now(self.state)


@dataclass(frozen=True)
class CallRecord:
    """One LLM call: stored as an ``npc.LlmCall`` row (live games) or counted (benchmarks)."""

    agent: str  # who asked: "dispatcher", "react/agent 1", "tdag/main", "tdag/sub-2", ...
    messages: Sequence[Message]
    reply: LlmReply
    parsed: Sequence[str] = ()  # commands extracted from the reply, "agent: action"
    problems: Sequence[str] = ()  # why parts of the reply were refused (fed back next turn)

    def prompt_text(self) -> str:
        return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in self.messages)


def caller(kind: str, domain: str, agent: int) -> str:
    """The label of a call one agent's brain made for itself ("react/agent 1"): in a kitchen each
    cook asks in turn, and a call page must say whose question each one was."""
    return f"{kind}/agent {agent + registry.descriptor(domain).display_base}"


@dataclass
class Decision:
    actions: list[tuple[int, str]] = field(default_factory=list)  # applied in this order
    calls: list[CallRecord] = field(default_factory=list)
    say: str = ""  # shown to the human as the NPCs' message / intention

    def extend(self, other: Decision) -> None:
        self.actions += other.actions
        self.calls += other.calls
        if other.say:
            self.say = f"{self.say}\n{other.say}".strip()


class Brain(Protocol):
    """An NPC controller. ``memory`` is JSON-serialisable and persisted between turns."""

    kind: str

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision: ...
