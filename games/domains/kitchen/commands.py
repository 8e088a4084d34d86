"""The five kitchen commands and their text grammar.

An agent's command (what ``act`` takes, what the websocket sends) is short: ``goto pot0``,
``get storage0 tuna``, ``get pot0``, ``put mixer1``, ``activate pot0``, ``noop``. The dispatcher
form names the agent, as in SPEC section 4: ``goto(agent1, pot0)``, ``get(agent1, storage0, tuna)``,
``noop(agent1)``; ``act`` accepts it too when the agent matches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from games.domains.kitchen.world import BASE_SET, STORAGE

VERBS = ("goto", "get", "put", "activate", "noop")

# One dispatcher command: verb(agentN[, location[, item]]).
DISPATCH_PATTERN = re.compile(
    r"\b(goto|get|put|activate|noop)\s*\(\s*agent\s*(\d+)\s*(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?"
    r"(?:,\s*([A-Za-z][A-Za-z0-9_]*)\s*)?\)",
    re.IGNORECASE,
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

GRAMMAR = """\
Commands (one per agent per step):
  goto(agentN, LOCATION)          walk to a location (takes the step)
  get(agentN, storage0, ITEM)     take a base ingredient from storage (hands must be empty)
  get(agentN, LOCATION)           take what a tool has cooked, or what lies on a chopboard
  put(agentN, LOCATION)           put what the agent holds into a tool; storage0 throws it away;
                                  servingtable0 serves an ordered dish
  activate(agentN, LOCATION)      cook the tool's contents (hands must be empty)
  noop(agentN)                    do nothing this step"""


class CommandError(ValueError):
    """A command that does not parse; the message says what a valid one looks like."""


@dataclass(frozen=True, slots=True)
class Command:
    verb: str
    location: str | None = None
    item: str | None = None
    # Both texts, written once per command (every step writes them for every agent): not part of the value.
    _text: str = field(init=False, compare=False, repr=False)
    _arguments: str = field(init=False, compare=False, repr=False)  # ", location[, item]"
    _dispatch: dict[int, str] = field(init=False, compare=False, repr=False)  # agent -> dispatch_text

    def __post_init__(self) -> None:
        rest = tuple(part for part in (self.location, self.item) if part)
        object.__setattr__(self, "_text", " ".join((self.verb, *rest)))
        object.__setattr__(self, "_arguments", "".join(f", {part}" for part in rest))
        object.__setattr__(self, "_dispatch", {})

    def text(self) -> str:
        """The short form ``act`` takes."""
        return self._text

    def dispatch_text(self, agent: int) -> str:
        """The dispatcher form ``verb(agentN, location[, item])`` (written once per agent)."""
        found = self._dispatch.get(agent)
        if found is None:
            found = self._dispatch[agent] = f"{self.verb}(agent{agent}{self._arguments})"
        return found


def parse(text: str, agent: int, locations: Mapping[str, str]) -> Command:
    """Parse ``text`` (short or dispatcher form) as a command of ``agent``; ``locations`` maps
    location names to kinds. Raise CommandError."""
    text = text.strip()
    if "(" in text:
        match = DISPATCH_PATTERN.fullmatch(text)
        if match is None:
            raise CommandError(
                f"{text!r} is not a command; write e.g. goto(agent{agent}, storage0) or noop(agent{agent})"
            )
        verb, who, first, second = match.groups()
        if int(who) != agent:
            raise CommandError(f"{text!r} names agent{who} but was sent for agent{agent}")
        parts = [verb.lower(), *(part for part in (first, second) if part)]
    else:
        parts = text.split()
        if parts:
            parts[0] = parts[0].lower()
    if not parts or parts[0] not in VERBS:
        raise CommandError(
            f"{text!r} is not a command; use one of: noop, goto LOCATION, get LOCATION [ITEM], put LOCATION, "
            "activate LOCATION"
        )
    verb, args = parts[0], parts[1:]
    if any(not _NAME.match(arg) for arg in args):
        raise CommandError(f"{text!r}: names are letters, digits and underscores")
    if verb == "noop":
        if args:
            raise CommandError("noop takes no location")
        return Command("noop")
    if not args:
        raise CommandError(f"{verb} needs a location, e.g. '{verb} {sorted(locations)[0]}'")
    location, rest = args[0], args[1:]
    if verb == "get" and location not in locations and rest and rest[0] in locations:
        location, rest = rest[0], [location]  # "get tuna storage0" (CuisineWorld's order) is fine too
    if location not in locations:
        raise CommandError(
            f"there is no location {location!r} in this kitchen; locations: {', '.join(sorted(locations))}"
        )
    if verb == "get":
        if len(rest) > 1:
            raise CommandError("get takes a location and at most one item")
        item = rest[0] if rest else None
        if locations[location] == STORAGE and item is None:
            raise CommandError(f"name the ingredient to take from {location}, e.g. 'get {location} tomato'")
        if locations[location] == STORAGE and item not in BASE_SET:
            raise CommandError(f"{item!r} is not a base ingredient; storage only has base ingredients")
        return Command("get", location, item)
    if rest:
        raise CommandError(f"{verb} takes only a location ('{verb} {location}')")
    return Command(verb, location)
