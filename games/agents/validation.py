"""Validation of extracted commands against the legal actions before anything is applied.

Domains with a finite action list are checked against it; domains whose actions carry free
parameters (times, places) are checked by a dry run of ``rules.act`` on the immutable state, which
costs nothing and leaves the game untouched. Commands are tried in order on the evolving dry-run
state, as they will be applied (kitchen commands of one step execute in the dispatcher's order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.agents.extraction import Command, normalise
from games.engine.rules import RuleSet


@dataclass
class Validation:
    accepted: list[Command]
    problems: list[str]


def validate(rules: RuleSet[Any], state: Any, commands: Sequence[Command], base: int = 0) -> Validation:
    """Apply the commands in turn to a trial state; refusals are named with the agent numbered as
    the domain's texts number it (index + ``base``)."""
    accepted: list[Command] = []
    problems: list[str] = []
    now = rules.now(state)
    for command in commands:
        legal = rules.legal_actions(state, command.agent)
        canonical = {normalise(action): action for action in legal}
        action = canonical.get(normalise(command.action), command.action)
        transition = rules.act(state, command.agent, action, now)
        refusal = transition.rejection
        if refusal is not None:
            problems.append(
                f"agent {command.agent + base}: '{command.action}' was refused ({refusal.kind}): {refusal.message}"
            )
            continue
        state = transition.state
        accepted.append(Command(command.agent, action))
    return Validation(accepted, problems)
