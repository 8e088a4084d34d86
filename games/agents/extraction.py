"""Strict extraction of commands from an LLM reply, per domain (SPEC section 7).

Only text that matches the domain's action grammar is taken; everything else in the reply (the
model's prose, code, JSON) is ignored and never executed. Two shapes exist:

* **listed** domains (tasks, recipes, and any domain whose legal actions are a finite list): a line
  ``Agent N: <action>`` (or, when one NPC is commanded, any line) is searched for the earliest
  mention of one of that agent's legal actions;
* **call** domains (kitchen ``goto(agent1, pot0)``, itinerary ``visit(place, begin, end)``): every
  match of the domain's call pattern is a command; kitchen commands name their agent.

Validation against the current state is separate (``validation.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.agents.turns import Decision
from games.engine import registry

AGENT_PREFIX = re.compile(
    r"^\s*(?:[-*•]\s*|\d+[.)]\s*)?(?:\*\*)?\s*(?:agent|npc)\s*#?\s*(\d+)\s*(?:\*\*)?\s*[:=\-–>]+\s*(.*)$", re.I
)
SAY_PREFIX = re.compile(r"^\s*(?:say|message|to the human|reply)\s*:\s*(.+)$", re.I)

KITCHEN_CALL = re.compile(
    r"\b(goto|get|put|activate|noop)\s*\(\s*agent\s*_?(\d+)\s*(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?"
    r"(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?\)",
    re.IGNORECASE,
)
ITINERARY_CALL = re.compile(r"\b(go_to_city|go_to_place|visit|stay_in)\s*\(([^()]*)\)", re.IGNORECASE)
RECIPES_CALL = re.compile(r"\b(step|pause|stop)\s*\(([^()]*)\)", re.IGNORECASE)

# Domains whose commands are calls; the rest are "listed".
CALL_DOMAINS = {"kitchen", "itinerary", "recipes"}


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


def normalise(text: str) -> str:
    return " ".join(text.strip().lower().split()).strip("`'\"").rstrip(".!;,").strip()


def _say(reply: str) -> str:
    for line in reply.splitlines():
        match = SAY_PREFIX.match(line)
        if match:
            return match.group(1).strip()[:500]
    return ""


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
    if domain == "kitchen":
        result = _extract_kitchen(reply, agents, state)
    elif domain == "itinerary":
        result = _extract_calls(reply, agents)
    elif domain == "recipes":
        result = _extract_recipes(reply, agents)
    else:
        result = _extract_listed(reply, agents, legal, registry.descriptor(domain).display_base)
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


def _agent_ok(agent: int, agents: Sequence[int], problems: list[str], what: str, base: int = 0) -> bool:
    if agent in agents:
        return True
    problems.append(
        f"'{what}': agent {agent + base} is not yours to command now; command only agents {_names(agents, base)}"
    )
    return False


def _names(agents: Sequence[int], base: int = 0) -> str:
    return ", ".join(str(a + base) for a in agents) or "(none free)"


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
        if not _agent_ok(agent, agents, problems, normalise(line), base):
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


def _extract_kitchen(reply: str, agents: Sequence[int], state: Any) -> Extraction:
    if state is not None:
        try:
            from games.domains.kitchen.text import extract_commands
        except ImportError:
            pass
        else:
            # The domain's strict extractor (checks location names, one command per agent).
            found = extract_commands(reply, state, agents)
            return Extraction([Command(a, c) for a, c in found.commands.items()], list(found.errors))
    commands: list[Command] = []
    problems: list[str] = []
    for match in KITCHEN_CALL.finditer(reply):
        verb, agent_text, location, item = match.groups()
        agent = int(agent_text)
        args = ", ".join(part for part in (f"agent{agent}", location, item) if part)
        text = f"{verb.lower()}({args})"
        if _agent_ok(agent, agents, problems, text):
            commands.append(Command(agent, text))
    return Extraction(commands, problems)


def _extract_calls(reply: str, agents: Sequence[int]) -> Extraction:
    commands: list[Command] = []
    problems: list[str] = []
    target = agents[0] if agents else 0
    try:
        from games.domains.itinerary.actions import ActionSyntaxError, parse_action
    except ImportError:
        parse_action = None  # type: ignore[assignment]
    for match in ITINERARY_CALL.finditer(reply):
        text = f"{match.group(1).lower()}({', '.join(part.strip() for part in match.group(2).split(','))})"
        if parse_action is not None:
            try:
                text = parse_action(text).text()
            except ActionSyntaxError as error:
                problems.append(str(error))
                continue
        commands.append(Command(target, text))
    return Extraction(commands, problems)


def _extract_recipes(reply: str, agents: Sequence[int]) -> Extraction:
    """``Step(...)``/``Pause(...)``/``Stop()`` calls, per ``Agent N:`` line or for the one agent."""
    try:
        from games.domains.recipes.text import ActionSyntaxError, parse_actions
    except ImportError:
        parse_actions = None  # type: ignore[assignment]
    commands: list[Command] = []
    problems: list[str] = []
    for line in reply.splitlines():
        match = AGENT_PREFIX.match(line)
        if match:
            agent, body = int(match.group(1)), match.group(2)
            if not _agent_ok(agent, agents, problems, normalise(line)):
                continue
        elif len(agents) == 1:
            agent, body = agents[0], line
        else:
            continue
        for call in RECIPES_CALL.finditer(body):
            text = call.group(0)
            if parse_actions is not None:
                try:
                    parse_actions(text)
                except ActionSyntaxError as error:
                    problems.append(str(error))
                    continue
            commands.append(Command(agent, text))
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
