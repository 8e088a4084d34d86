"""The recipes action grammar (SPEC section 3), shared by planning agents, players and logs.

- ``Step(step, recipe, duration, start)``: work on ``step`` of ``recipe`` for ``duration`` from
  ``start``; times are HH:MM:SS or MM:SS. ``Step(step, recipe)`` means "all that is left, now";
  ``Step(step, recipe, duration)`` means "for that long, now". Quotes around values are optional.
- Several ``Step(...)`` in one text are a plan: executed in order of start time until the first error.
- ``Pause(step, recipe)``: stop the running chunk of an interruptible step now (real-time play).
- ``Stop()``: the agent gives up; the episode ends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from games.domains.recipes.timefmt import TimeFormatError, parse_clock
from games.engine.durations import format_clock
from games.engine.replies import AGENT_PREFIX, Commands, agent_ok, normalise

_CALL = re.compile(r"\b(step|pause|stop)\s*\(([^()]*)\)", re.I)
GRAMMAR_HINT = (
    "write Step(step, recipe, duration, start) with times as HH:MM:SS, e.g. Step(1, Cobbler, 00:02:00, 00:00:00); "
    "Step(1, Cobbler) starts all of step 1 now; Pause(1, Cobbler) pauses an interruptible step; Stop() ends"
)


def recipe_title(name: str) -> str:
    """A recipe's name as people read it: Recipe2Plan writes "Tomato-Soup" (one word, so the action
    grammar can name it); headings and buttons say "Tomato Soup". Actions keep the data's name."""
    return " ".join(name.replace("_", " ").replace("-", " ").split()) or name


def short_titles(titles: Sequence[str]) -> dict[str, str]:
    """Each recipe title as a narrow timeline bar names it: its initials ("BB" for "Banana Bread"),
    or its first word where two titles share initials ("Tomato", "Tray")."""
    initials = [_initials(title) for title in titles]
    return {t: (i if initials.count(i) == 1 else t.split()[0]) for t, i in zip(titles, initials, strict=True)}


def _initials(title: str) -> str:
    return "".join(word[0].upper() for word in title.split())


class ActionSyntaxError(ValueError):
    """Text that is not an action of the grammar; the message says how to write one."""


@dataclass(frozen=True, slots=True)
class StepAction:
    step: int
    recipe: str
    duration: int | None = None
    start: int | None = None

    def text(self) -> str:
        parts = [str(self.step), self.recipe]
        if self.duration is not None:
            parts.append(format_clock(self.duration))
        if self.start is not None:
            parts.append(format_clock(self.start))
        return f"Step({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class PauseAction:
    step: int
    recipe: str

    def text(self) -> str:
        return f"Pause({self.step}, {self.recipe})"


@dataclass(frozen=True, slots=True)
class StopAction:
    def text(self) -> str:
        return "Stop()"


Action = StepAction | PauseAction | StopAction


def step_text(step: int, recipe: str, duration: int, start: int) -> str:
    return StepAction(step, recipe, duration, start).text()


def _clean(value: str) -> str:
    return value.strip().strip("'\"`").strip()


def _step_number(raw: str) -> int:
    cleaned = _clean(raw)
    if not re.fullmatch(r"\d+", cleaned):
        raise ActionSyntaxError(f"{cleaned!r} is not a step number; {GRAMMAR_HINT}")
    return int(cleaned)


def _time(raw: str, what: str) -> int:
    try:
        return parse_clock(_clean(raw))
    except TimeFormatError as error:
        raise ActionSyntaxError(f"the {what} {error}") from None


def parse_actions(text: str) -> list[Action]:
    """Every action in ``text`` in written order; raises ActionSyntaxError if there is none or one is
    malformed."""
    if not isinstance(text, str):
        raise ActionSyntaxError(f"an action must be text; {GRAMMAR_HINT}")
    return list(_parse_actions(text))


@lru_cache(maxsize=1 << 14)
def _parse_actions(text: str) -> tuple[Action, ...]:
    # Memoised: the same lines recur (offered actions, plans replayed); actions are immutable values
    # and a text that fails raises again (nothing is remembered).
    found: list[Action] = []
    for match in _CALL.finditer(text):
        name, args = match.group(1).lower(), match.group(2)
        parts = list(args.split(",")) if args.strip() else []
        if name == "stop":
            found.append(StopAction())
            continue
        if name == "pause":
            if len(parts) != 2:
                raise ActionSyntaxError(
                    f"Pause takes a step number and a recipe, e.g. Pause(4, Cobbler); got {match.group(0)!r}"
                )
            found.append(PauseAction(_step_number(parts[0]), _clean(parts[1])))
            continue
        if not 2 <= len(parts) <= 4:
            raise ActionSyntaxError(f"{match.group(0)!r} has {len(parts)} values; {GRAMMAR_HINT}")
        recipe = _clean(parts[1])
        if not recipe:
            raise ActionSyntaxError(f"{match.group(0)!r} names no recipe; {GRAMMAR_HINT}")
        duration = _time(parts[2], "duration") if len(parts) >= 3 else None
        start = _time(parts[3], "start") if len(parts) == 4 else None
        found.append(StepAction(_step_number(parts[0]), recipe, duration, start))
    if not found:
        if text.strip().lower() in {"stop", "stop."}:
            return (StopAction(),)
        raise ActionSyntaxError(f"{text.strip()[:80]!r} is not an action; {GRAMMAR_HINT}")
    return tuple(found)


RECIPES_CALL = re.compile(r"\b(step|pause|stop)\s*\(([^()]*)\)", re.IGNORECASE)


def extract_reply(
    reply: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], state: Any
) -> tuple[Commands, list[str]]:
    """The recipes' LLM text interface (``Domain.text``): ``Step(...)``/``Pause(...)``/``Stop()``
    calls, per ``Agent N:`` line or, with one agent, anywhere."""
    commands: Commands = []
    problems: list[str] = []
    for line in reply.splitlines():
        match = AGENT_PREFIX.match(line)
        if match:
            agent, body = int(match.group(1)), match.group(2)
            if not agent_ok(agent, agents, problems, normalise(line)):
                continue
        elif len(agents) == 1:
            agent, body = agents[0], line
        else:
            continue
        for call in RECIPES_CALL.finditer(body):
            try:
                parse_actions(call.group(0))
            except ActionSyntaxError as error:
                problems.append(str(error))
                continue
            commands.append((agent, call.group(0)))
    return commands, problems
