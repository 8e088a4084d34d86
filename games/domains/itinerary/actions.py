"""The four actions of the itinerary grammar: parsing and canonical formatting.

    go_to_city(origin, destination, departure, arrival, train)
    go_to_place(origin, destination, departure, arrival)
    visit(place, begin, end)
    stay_in(city, begin, end)

Times are "YYYY-MM-DD HH:MM". Arguments may be bare, quoted ('...' or "...") or named
(``origin="Beijing"``), as LLMs write them; names are matched case-insensitively. One action per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ARITY = {"go_to_city": 5, "go_to_place": 4, "visit": 3, "stay_in": 3}
SYNTAX = {
    "go_to_city": (
        "go_to_city(origin city, destination city, YYYY-MM-DD HH:MM departure, YYYY-MM-DD HH:MM arrival, train)"
    ),
    "go_to_place": "go_to_place(origin place, destination place, YYYY-MM-DD HH:MM departure, YYYY-MM-DD HH:MM arrival)",
    "visit": "visit(place, YYYY-MM-DD HH:MM begin, YYYY-MM-DD HH:MM end)",
    "stay_in": "stay_in(city, YYYY-MM-DD HH:MM begin, YYYY-MM-DD HH:MM end)",
}
_CALL = re.compile(r"^\s*(?:self\.)?([a-z_]+)\s*\((.*)\)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_NAMED = re.compile(r"^[a-z_]+\s*=\s*", re.IGNORECASE)
# ``goto_city`` is what the reference simulator's own error messages call it.
_ALIASES = {"goto_city": "go_to_city", "goto_place": "go_to_place", "stay": "stay_in"}


class ActionSyntaxError(ValueError):
    """Text that is not one of the four actions; the message shows the expected form."""


@dataclass(frozen=True, slots=True)
class Action:
    verb: str
    args: tuple[str, ...]

    def text(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"


def _strip(arg: str) -> str:
    arg = _NAMED.sub("", arg.strip(), count=1).strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "'\"":
        arg = arg[1:-1]
    return " ".join(arg.split())


def parse_action(text: str) -> Action:
    """Parse one action line; raise ActionSyntaxError saying what was expected."""
    return _parse_action(text)


@lru_cache(maxsize=1 << 14)
def _parse_action(text: str) -> Action:
    # Memoised: the same lines recur (a plan scored again, an assistant's proposal played): the
    # result is an immutable value and a text that fails raises again (nothing is remembered).
    match = _CALL.match(text or "")
    if not match:
        raise ActionSyntaxError(
            f"{(text or '').strip()[:80]!r} is not an action; write one of: " + "; ".join(SYNTAX.values())
        )
    verb = match.group(1).lower()
    verb = _ALIASES.get(verb, verb)
    if verb not in ARITY:
        raise ActionSyntaxError(f"unknown action {match.group(1)!r}; the actions are " + "; ".join(SYNTAX.values()))
    body = match.group(2).strip()
    # Place names hold no commas, so commas split arguments (quoted "Xi'an" must not trip a lexer).
    args = tuple(_strip(arg) for arg in body.split(",")) if body else ()
    if len(args) != ARITY[verb] or not all(args):
        raise ActionSyntaxError(f"{verb} takes {ARITY[verb]} arguments: {SYNTAX[verb]}")
    return Action(verb, args)


def parse_plan(text: str) -> list[str]:
    """The action lines of a plan text (blank lines and ``#`` comments skipped; numbering forgiven)."""
    lines = []
    for raw in text.splitlines():
        line = re.sub(r"^\s*(?:\d+[.)]|[-*])\s*", "", raw).strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def go_to_city(origin: str, destination: str, departure: str, arrival: str, train: str) -> str:
    return f"go_to_city({origin}, {destination}, {departure}, {arrival}, {train})"


def go_to_place(origin: str, destination: str, departure: str, arrival: str) -> str:
    return f"go_to_place({origin}, {destination}, {departure}, {arrival})"


def visit(place: str, begin: str, end: str) -> str:
    return f"visit({place}, {begin}, {end})"


def stay_in(city: str, begin: str, end: str) -> str:
    return f"stay_in({city}, {begin}, {end})"
