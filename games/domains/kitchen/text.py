"""The text interface of a dispatcher LLM: the state as text, the command grammar, and a strict
extractor that reads one command per agent from a reply.

The reply may contain prose; only ``verb(agentN, ...)`` calls count. An agent named twice gets
no command at all (the reply is ambiguous for it) and the problem goes back as feedback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from games.domains.kitchen.commands import DISPATCH_PATTERN, GRAMMAR, CommandError, parse
from games.engine.replies import Commands, agent_ok

if TYPE_CHECKING:
    from games.domains.kitchen.state import KitchenState

__all__ = ["GRAMMAR", "Extraction", "extract_commands", "extract_reply", "state_text"]


def state_text(state: KitchenState, agent: int | None = None) -> str:
    """The current state for a dispatcher (or for ``agent``'s own view: the same text, since the
    kitchen is fully observable)."""
    step = state.step
    lines = [f"step {step} of {state.level.max_steps} (level {state.level.name})"]
    lines.append("orders (dish, steps left):")
    orders = sorted(state.orders, key=lambda o: (o.deadline, o.id))
    lines += [f"  #{o.id} {o.dish}: {o.remaining(step)} steps left" for o in orders] or ["  none"]
    lines.append(f"served {state.completed}, expired {state.failed}")
    lines.append("agents:")
    for index, member in enumerate(state.agents):
        busy = f", busy until step {member.busy_until}" if member.busy_until > step else ""
        mine = " (you)" if agent is not None and index == agent else ""
        lines.append(f"  agent{index}{mine}: at {member.location}, holding {member.holding or 'nothing'}{busy}")
    lines.append("locations:")
    for tool in state.tools:
        contents = ", ".join(tool.contents) if tool.contents else "empty"
        flags = []
        if tool.busy(step):
            flags.append(f"busy until step {tool.busy_until}")
        if tool.pickable and tool.contents:
            flags.append("pickable")
        suffix = f" ({'; '.join(flags)})" if flags else ""
        if tool.kind in ("storage", "servingtable"):
            contents = "base ingredients" if tool.kind == "storage" else "serve ordered dishes here"
        lines.append(f"  {tool.name}: {contents}{suffix}")
    if state.feedback:
        lines.append("feedback from the last step:")
        lines += [f"  {note.message}" for note in state.feedback]
    if state.suggestions:
        lines.append("suggestions:")
        lines += [f"  {note.message}" for note in state.suggestions]
    return "\n".join(lines)


@dataclass
class Extraction:
    """Commands read from a reply, in the reply's order, and the problems found."""

    commands: dict[int, str] = field(default_factory=dict)  # agent -> short command ("goto pot0")
    errors: list[str] = field(default_factory=list)


def extract_commands(reply: str, state: KitchenState, agents: Iterable[int]) -> Extraction:
    """Read at most one command per agent in ``agents`` from an LLM reply.

    Commands for other agents, malformed commands and agents named more than once are reported in
    ``errors`` and give that agent no command.
    """
    allowed = set(agents)
    kinds = state.level.kinds
    found: dict[int, list[str]] = {}
    order: list[int] = []
    result = Extraction()
    for match in DISPATCH_PATTERN.finditer(reply):
        agent = int(match.group(2))
        if agent not in allowed:
            result.errors.append(
                f"{match.group(0)}: agent{agent} is not yours to command (you command "
                f"{', '.join(f'agent{a}' for a in sorted(allowed)) or 'nobody'})"
            )
            continue
        if agent not in found:
            order.append(agent)
        found.setdefault(agent, []).append(match.group(0))
    for agent in order:
        texts = found[agent]
        if len(texts) > 1:
            result.errors.append(f"agent{agent} got {len(texts)} commands ({'; '.join(texts)}); give exactly one")
            continue
        try:
            result.commands[agent] = parse(texts[0], agent, kinds).text()
        except CommandError as error:
            result.errors.append(str(error))
    if not found and not result.errors:
        first = min(allowed, default=0)
        result.errors.append(f"no command found; write one line per agent such as goto(agent{first}, storage0)")
    return result


# Calls as a reply may write them when the state is unknown (no location names to check against).
KITCHEN_CALL = re.compile(
    r"\b(goto|get|put|activate|noop)\s*\(\s*agent\s*_?(\d+)\s*(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?"
    r"(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?\)",
    re.IGNORECASE,
)


def extract_reply(
    reply: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], state: KitchenState | None
) -> tuple[Commands, list[str]]:
    """The kitchen's LLM text interface (``Domain.text``): with the state, the strict extractor
    (checks location names, one command per agent); without it, every well-formed call."""
    if state is not None:
        found = extract_commands(reply, state, agents)
        return list(found.commands.items()), list(found.errors)
    commands: Commands = []
    problems: list[str] = []
    for match in KITCHEN_CALL.finditer(reply):
        verb, agent_text, location, item = match.groups()
        agent = int(agent_text)
        args = ", ".join(part for part in (f"agent{agent}", location, item) if part)
        text = f"{verb.lower()}({args})"
        if agent_ok(agent, agents, problems, text):
            commands.append((agent, text))
    return commands, problems
