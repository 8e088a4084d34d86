"""The tasks play page in people's words (the tasks descriptor's presenter).

TimeArena names an object in one word so that its grammar can parse a command ("add tea_leaves to
teapot", "run washing_machine"); the page writes "tea leaves" and "washing machine" (buttons, board,
log, timeline, refusals; ``spaced``), and a command typed as it reads on a button is sent as the
button's own command (static/js/game.js). Actions, exports, the API and prompts keep the grammar's
words.

A player who presses Wait while the bread proves writes "You wait one minute." once a minute; the
log reads a run of such waits by one agent as one line at the run's first minute: "t=2 You wait 8
minutes (until t=10)." (a teammate's: "waits 8 minutes (until t=10)."). Programs and prompts keep
the rules' own line per wait.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games import timeline
from games.presenters import in_readers_words

# An identifier joined by underscores ("tea_leaves", "set_up"): words for people.
_JOINED = re.compile(r"\b([A-Za-z0-9]+(?:_[A-Za-z0-9]+)+)\b")


def spaced(text: str) -> str:
    """``text`` with each word joined by underscores written as words ("add tea leaves to teapot")."""
    return _JOINED.sub(lambda m: m.group(1).replace("_", " "), text) if "_" in text else text


# The rules' one-minute wait, as the agent reads it ("You wait one minute.") or as the log writes
# it after a teammate's name ("waits one minute.", games.presenters.as_read_by).
_ONE_MINUTE = re.compile(r"^(You wait|waits) one minute\.$")


def one_minute_wait(entry: Mapping[str, Any]) -> bool:
    data = entry.get("data")
    details = data.get("details") if isinstance(data, Mapping) else None
    return (
        entry.get("category") == "engine"
        and entry.get("kind") == "waited"
        and not (isinstance(details, Mapping) and details.get("until") is not None)
        and bool(_ONE_MINUTE.match(str(entry.get("message", ""))))
    )


def _minute(entry: Mapping[str, Any]) -> int | None:
    time = entry.get("time")
    return int(time) if isinstance(time, int | float) else None


def collapse_waits(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` with each run of one agent's one-minute waits, minute after minute, as one line
    at the run's first minute, numbered (``seq``) as its last entry (a teammate's lines in between
    stay where they are, after it)."""
    lines: list[dict[str, Any]] = []
    runs: dict[int, tuple[int, int]] = {}  # a run's first line in ``lines`` -> (its first minute, minutes)
    going_on: dict[Any, int] = {}  # agent -> its run that the next minute's wait would carry on
    for entry in entries:
        agent, minute = entry.get("agent"), _minute(entry)
        if minute is not None and one_minute_wait(entry):
            first = going_on.get(agent)
            if first is not None and entry.get("message") == lines[first]["message"]:
                began, length = runs[first]
                if minute == began + length:
                    runs[first] = (began, length + 1)
                    # the line stands for the run up to this entry (the page's newest line moves on)
                    lines[first] = dict(lines[first], seq=entry.get("seq"))
                    continue
            going_on[agent] = len(lines)
            runs[len(lines)] = (minute, 1)
        else:
            going_on.pop(agent, None)
        lines.append(entry)
    for first, (began, length) in runs.items():
        if length > 1:
            said = f"{length} minutes (until t={began + length})."
            lines[first] = dict(lines[first], message=_ONE_MINUTE.sub(rf"\1 {said}", lines[first]["message"]))
    return lines


_RUN_BY = re.compile(r"\(agent (\d+), ")


def by_name(message: str, name_of: Callable[[int], str | None]) -> str:
    """The rules name who runs an action by number ("already under way (agent 2, until t=5)"); the
    page by the seat's name as its reader knows it ("(by Teammate 1, until t=5)", "(by you, ...").
    ``name_of``: an agent's index -> its name (None keeps the number)."""

    def name(match: re.Match[str]) -> str:
        who = name_of(int(match.group(1)) - 1)
        return match.group(0) if who is None else f"(by {'you' if who == 'You' else who}, "

    return _RUN_BY.sub(name, message)


def _seat_name(names: Sequence[str]) -> Callable[[int], str | None]:
    return lambda index: names[index].split(" (")[0] if 0 <= index < len(names) else None


class TasksPresenter:
    """The tasks descriptor's board presenter (``games.presenters.presenter``)."""

    def log_lines(self, entries: Sequence[dict[str, Any]], names: Sequence[str], board: Mapping[str, Any]) -> list:
        lines = collapse_waits(entries)
        # the rules' words (a chat line keeps its writer's own); a refusal after the agent's name
        # says what it is ("You could not: 'add tea leaf to teapot' is not an action."), as the
        # kitchen's log does; one in the reader's own words ("You are busy with fill kettle until
        # t=1; ...") has no name before it and needs no "could not"
        return [
            dict(
                e,
                message=("could not: " if e.get("kind") == "rejected" and not in_readers_words(e) else "")
                + by_name(spaced(str(e["message"])), _seat_name(names)),
            )
            if e.get("category") == "engine"
            else e
            for e in lines
        ]

    def describe(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], str]:
        """A timeline bar's words: the action as the buttons write it."""
        return lambda details: spaced(timeline.default_label(details))

    def abbreviate(self, data: Mapping[str, Any]) -> timeline.Abbreviate:
        """A one-minute bar is too narrow for "pour kettle into teapot": it reads "pour"."""
        return timeline.first_word

    def feedback(self, message: str, viewer: int | None, data: Mapping[str, Any] | None = None) -> str:
        """A refusal in the page's words ("tea leaves", not "tea_leaves"; "by you", not "agent 1")."""
        if viewer is None:
            return spaced(message)
        return by_name(spaced(message), lambda index: "You" if index == viewer else "a teammate")

    def rewrites_log(self, entries: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the page's log, shown so far, reads differently once ``entries`` (an update's)
        are in it (a wait that may carry on the line before it): the live page then receives the
        log whole rather than the new lines appended."""
        return any(one_minute_wait(e) for e in entries)


PRESENTER = TasksPresenter()
