"""The itinerary's LLM text interface (``Domain.text``): every ``go_to_city(...)``,
``go_to_place(...)``, ``visit(...)`` or ``stay_in(...)`` call in a reply, in the action grammar's
own spelling; the traveller is the one agent commanded."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.domains.itinerary.actions import ActionSyntaxError, parse_action
from games.engine.replies import Commands

ITINERARY_CALL = re.compile(r"\b(go_to_city|go_to_place|visit|stay_in)\s*\(([^()]*)\)", re.IGNORECASE)


def extract_reply(
    reply: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], state: Any
) -> tuple[Commands, list[str]]:
    commands: Commands = []
    problems: list[str] = []
    target = agents[0] if agents else 0
    for match in ITINERARY_CALL.finditer(reply):
        text = f"{match.group(1).lower()}({', '.join(part.strip() for part in match.group(2).split(','))})"
        try:
            commands.append((target, parse_action(text).text()))
        except ActionSyntaxError as error:
            problems.append(str(error))
    return commands, problems
