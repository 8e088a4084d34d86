"""Strict extraction of commands from an LLM reply, per domain (SPEC section 7).

Only text that matches the domain's action grammar is taken; everything else in the reply (the
model's prose, code, JSON) is ignored and never executed. A domain whose descriptor names a text
interface (``Domain.text``: kitchen ``goto(agent1, pot0)``, itinerary ``visit(place, begin, end)``,
recipes ``Step(k, Recipe)``) reads replies with its own grammar, inside its package; for the others
(tasks) a line ``Agent N: <action>`` (or, when one NPC is commanded, any line) is searched for the
earliest mention of one of that agent's legal actions.

Validation against the current state is separate (``validation.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.agents.turns import Decision
from games.engine import registry
from games.engine.replies import AGENT_PREFIX, agent_ok, normalise

SAY_PREFIX = re.compile(r"^\s*(?:say|message|to the human|reply)\s*:\s*(.+)$", re.I)


def display(domain: str, agent: int) -> int:
    """The agent's number as the domain's own texts write it (tasks says "agent 1" for index 0)."""
    return agent + registry.descriptor(domain).display_base


@dataclass(frozen=True, slots=True)
class Command:
    agent: int
    action: str

    def __str__(self) -> str:
        return f"agent {self.agent}: {self.action}"


@dataclass
class Extraction:
    commands: list[Command]
    problems: list[str]
    say: str = ""


def _say(reply: str) -> str:
    for line in reply.splitlines():
        match = SAY_PREFIX.match(line)
        if match:
            return spoken(match.group(1))
    return ""


def spoken(text: str) -> str:
    """What an NPC says to the human, on one line and at most 500 characters; nothing when the model
    copied the answer format's placeholder ("<a short answer to the human>") instead of answering."""
    said = " ".join(text.split())[:500]
    return "" if said.startswith("<") and said.endswith(">") else said


def _earliest_mention(text: str, actions: Sequence[str]) -> str | None:
    lowered = " ".join(text.lower().split())
    best: tuple[int, int, str] | None = None
    for candidate in actions:
        needle = " ".join(candidate.lower().split())
        match = re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", lowered)
        if match and (best is None or (match.start(), -len(needle)) < (best[0], best[1])):
            best = (match.start(), -len(needle), candidate)
    return best[2] if best else None


def extract(
    domain: str,
    reply: str,
    agents: Sequence[int],
    legal: Mapping[int, Sequence[str]],
    *,
    one_each: bool = True,
    state: Any = None,
) -> Extraction:
    """Commands for ``agents`` found in ``reply``. ``legal`` maps each agent to its legal actions
    (used to find actions in listed domains). With ``one_each`` only the first command per agent
    is kept (dispatchers give one command per agent per turn). ``state`` lets a domain's own
    extractor check names (kitchen locations)."""
    descriptor = registry.descriptor(domain)
    own = descriptor.part("text")
    if own is None:
        result = _extract_listed(reply, agents, legal, descriptor.display_base)
    else:
        commands, problems = own(reply, agents, legal, state)
        result = Extraction([Command(agent, action) for agent, action in commands], list(problems))
    result.say = _say(reply)
    if one_each:
        seen: set[int] = set()
        kept = []
        for command in result.commands:
            if command.agent in seen:
                continue
            seen.add(command.agent)
            kept.append(command)
        result.commands = kept
    if not result.commands and not result.problems:
        result.problems.append(
            "no command found in your reply; answer with one line per agent in the format shown"
            if len(agents) > 1
            else "no valid action found in your reply; answer with one action from the list"
        )
    return result


def _extract_listed(reply: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], base: int = 0) -> Extraction:
    commands: list[Command] = []
    problems: list[str] = []
    prefixed = False
    for line in reply.splitlines():
        match = AGENT_PREFIX.match(line)
        if not match:
            continue
        prefixed = True
        agent, rest = int(match.group(1)) - base, match.group(2)
        if not agent_ok(agent, agents, problems, normalise(line), base):
            continue
        action = _earliest_mention(rest, legal.get(agent, ()))
        if action is None:
            problems.append(f"agent {agent + base}: '{normalise(rest)}' is not one of its possible actions now")
        else:
            commands.append(Command(agent, action))
    if not prefixed and len(agents) == 1:
        # One NPC (or a single-agent benchmark): an "Action:" line wins, else the first line that
        # names a legal action.
        agent = agents[0]
        lines = [line for line in reply.splitlines() if line.strip()]
        action_lines = [line.split(":", 1)[1] for line in lines if line.strip().lower().startswith("action")]
        for line in action_lines + lines:
            action = _earliest_mention(line, legal.get(agent, ()))
            if action is not None:
                commands.append(Command(agent, action))
                break
    return Extraction(commands, problems)


def raw_first_line(reply: str) -> str:
    """What a benchmark agent "said" when nothing parsed: its first line, short, so the rules can
    reject it with their own feedback (the papers count these as invalid actions)."""
    for line in reply.splitlines():
        if line.strip():
            return normalise(line)[:200]
    return ""


def record_summary(decision: Decision) -> str:
    return "; ".join(f"agent {agent}: {action}" for agent, action in decision.actions)
