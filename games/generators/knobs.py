"""Knobs: a generator's named, bounded parameters, parsed the same way on the command line and the page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class KnobError(ValueError):
    """A knob value out of range or of the wrong type; the message names the knob."""


@dataclass(frozen=True, slots=True)
class Knob:
    name: str
    default: int | float | bool
    low: int | float = 0
    high: int | float = 1
    help: str = ""

    @property
    def kind(self) -> type:
        return type(self.default)

    @property
    def label(self) -> str:
        """The name as a form reads it: ``per_task`` is "Per task"."""
        return self.name.replace("_", " ").capitalize()

    @property
    def is_bool(self) -> bool:
        return isinstance(self.default, bool)

    def parse(self, raw: Any) -> int | float | bool:
        """The value from a string (command line, form) or a JSON value; raises KnobError."""
        kind = self.kind
        try:
            if kind is bool:
                if isinstance(raw, bool):
                    value: Any = raw
                elif str(raw).strip().lower() in {"1", "true", "yes", "on"}:
                    value = True
                elif str(raw).strip().lower() in {"0", "false", "no", "off", ""}:
                    value = False
                else:
                    raise ValueError
                return value
            value = kind(raw) if kind is float else int(str(raw).strip())
        except (TypeError, ValueError):
            raise KnobError(
                f"{self.name}: expected {'a whole number' if kind is int else 'a number'}, got {raw!r}"
            ) from None
        if not self.low <= value <= self.high:
            raise KnobError(f"{self.name}: must be from {self.low} to {self.high}, got {value}")
        return value


def resolve(knobs: Sequence[Knob], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every knob's value: the given ones parsed, the rest at their defaults; unknown names refused."""
    names = {knob.name for knob in knobs}
    unknown = sorted(set(given) - names)
    if unknown:
        raise KnobError(f"unknown knob {', '.join(unknown)} (knobs: {', '.join(sorted(names))})")
    return {
        knob.name: knob.parse(given[knob.name]) if given.get(knob.name) is not None else knob.default for knob in knobs
    }
