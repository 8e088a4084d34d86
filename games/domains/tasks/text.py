"""What an LLM agent reads and writes in the tasks domain: the text observation and the action parser.

Input is one line, ``verb OBJ`` or ``verb OBJ1 prep OBJ2`` or ``wait``, case-insensitive, extra
spaces ignored. ``extract_action`` finds the first valid action in a free-form LLM reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.domains.tasks.state import holders_by_object
from games.engine.values import own_cache

if TYPE_CHECKING:
    from games.domains.tasks.state import TasksState

WAIT = "wait"
# Offered while something runs: the agent rests until the next running action completes.
WAIT_NEXT = "wait until something finishes"


@dataclass(frozen=True, slots=True)
class Command:
    text: str  # normalised input
    verb: str
    objects: tuple[str, ...]
    prep: str | None


def normalise(line: str) -> str:
    """Lower case, single spaces, no surrounding quotes or final full stop."""
    text = " ".join(line.strip().lower().split())
    return text.strip("`'\"").rstrip(".!").strip()


def parse(line: str) -> Command | None:
    """A command in the grammar, or None when the line has the wrong number of words."""
    text = normalise(line)
    words = text.split()
    if len(words) == 2:
        return Command(text, words[0], (words[1],), None)
    if len(words) == 4:
        return Command(text, words[0], (words[1], words[3]), words[2])
    return None


def extract_action(reply: str, actions: list[str] | tuple[str, ...]) -> str:
    """The first of ``actions`` (or ``wait``) that appears in ``reply``; else its first non-empty line.

    LLMs wrap their choice in prose ("I will chop beef now."), so we search for the earliest
    mention of a known action; when none appears the first line goes to the rules, whose feedback
    then says what is wrong with it.
    """
    lowered = " ".join(reply.lower().split())
    best: tuple[int, int, str] | None = None
    for candidate in [*actions, WAIT]:
        match = re.search(rf"(?<![\w]){re.escape(candidate)}(?![\w])", lowered)
        if match and (best is None or (match.start(), -len(candidate)) < (best[0], best[1])):
            best = (match.start(), -len(candidate), candidate)
    if best is not None:
        return best[2]
    for line in reply.splitlines():
        if line.strip():
            return normalise(line)
    return ""


def observation_text(state: TasksState, agent: int, legal: list[str]) -> str:
    """The turn prompt an LLM agent reads: time, tasks, what runs, what is left, what it can do."""
    cached = own_cache(state, "observed")
    shared = cached.get("text")
    if shared is None:
        shared = cached["text"] = _shared_text(state)
    me = state.agents[agent]
    who = f"You (agent {agent + 1})" if state.options.agents > 1 else "You"
    if state.ended:
        situation = f"The episode is over: {state.ended}."
    elif me.busy_until > state.time:
        situation = f"{who} are busy with {me.doing} until t={me.busy_until}."
    else:
        situation = f"{who} are free to start an action."
    lines = [shared[0], situation, shared[1]]
    if legal:
        lines.append("You can start now: " + ", ".join(legal) + ".")
        lines.append('Reply with exactly one action, e.g. "' + legal[0] + '".')
    return "\n".join(lines)


def _shared_text(state: TasksState) -> tuple[str, str]:
    """What every agent reads alike: the time line, and the tasks and objects in use."""
    scenario = state.scenario
    head = f"Time: t={state.time} of {state.options.time_limit} minutes. Progress: {state.progress:.0f}%."
    lines = []
    running = {run.action: run for run in state.running}
    for task in scenario.tasks:
        lines.append(f"Task {task.index + 1}: {task.title}. {task.goal}".rstrip())
        for index in task.actions:
            action = scenario.actions[index]
            kind = "runs by itself" if action.background else "occupies you"
            if index in state.done:
                status = "done"
            elif index in running:
                run = running[index]
                status = f"running (agent {run.agent + 1}) until t={run.end}"
            else:
                needs = [scenario.actions[r].text for r in action.requires if r not in state.done]
                status = "to do" + (f", needs: {', '.join(needs)}" if needs else "")
            lines.append(f"  - {action.text} ({action.minutes} min, {kind}): {status}")
    busy = []
    holding = holders_by_object(state)
    for obj in scenario.objects:
        users = holding.get(obj.name, [])
        if obj.appliance and len(users) >= obj.capacity:
            busy.append(f"{obj.name} (all {obj.capacity} in use until t={min(r.end for r in users)})")
        elif not obj.appliance and users:
            busy.append(f"{obj.name} (in use until t={users[0].end})")
    if busy:
        lines.append("Objects in use: " + "; ".join(busy) + ".")
    return head, "\n".join(lines)
