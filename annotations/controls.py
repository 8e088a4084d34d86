"""The labelling page's per-step controls: what each shows, which key sets it, and reading a save.

Kept apart from the views so the page, the save endpoint and the adjudication page render the
same controls from the same description, and the key map documented on the page is the one the
script uses (it reads ``data-key`` attributes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.http import QueryDict

from annotations.schema import (
    CONCURRENCY,
    DEPENDENCY,
    INTERRUPTIBILITY,
    NONE,
    PROPERTY_TITLES,
    RESOURCE,
    TIME_CONSTRAINT,
    join_resources,
    join_steps,
    split_constraints,
    split_resources,
    split_steps,
)
from games.engine.durations import describe_amount

# (value, label, key) per closed property, in display order.
RADIO_CHOICES: dict[str, list[tuple[str, str, str]]] = {
    CONCURRENCY: [("autonomous", "Autonomous", "a"), ("continuous", "Continuous", "c")],
    INTERRUPTIBILITY: [("interruptible", "Interruptible", "i"), ("not_interruptible", "Not interruptible", "n")],
}
# What each closed label means (the project's guidelines say more); Recipe2Plan's parallel and interrupt.
MEANINGS = {
    "autonomous": "runs by itself once started (baking, simmering): the cook is free meanwhile",
    "continuous": "keeps the cook busy from start to end (chopping, stirring)",
    "interruptible": "may be paused and resumed later; the time left carries on",
    "not_interruptible": "once started it runs to its end without a pause",
}
RESOURCE_CHOICES = [
    (NONE, "None", "0"),
    ("oven", "Oven", "o"),
    ("microwave", "Microwave", "m"),
    ("stove", "Stove", "s"),
]
FOCUS_KEYS = {TIME_CONSTRAINT: "t", DEPENDENCY: "d"}

# (keys, what they do, the property they label or None for moving about), in the legend's order.
SHORTCUTS: list[tuple[str, str, str | None]] = [
    ("j / ↓", "next step", None),
    ("k / ↑", "previous step", None),
    ("a / c", "autonomous / continuous", CONCURRENCY),
    ("i / n", "interruptible / not interruptible", INTERRUPTIBILITY),
    ("o / m / s", "toggle oven / microwave / stove", RESOURCE),
    ("0", "no resource", RESOURCE),
    ("x", "no time constraint", TIME_CONSTRAINT),
    ("t", "time constraint: ↓/↑ pick the step, Tab to the minutes, type them, Enter", TIME_CONSTRAINT),
    ("d", "dependencies: Space toggles a step, Tab to the next one, Esc goes back", DEPENDENCY),
    ("Esc", "back to the step (leave a field)", None),
    ("?", "show or hide these shortcuts", None),
]


def shortcuts_for(properties: Sequence[str]) -> list[tuple[str, str]]:
    """The legend of a project's label page: the keys of the properties it labels, and moving about."""
    return [(keys, what) for keys, what, prop in SHORTCUTS if prop is None or prop in properties]


@dataclass
class Choice:
    value: str
    label: str
    key: str = ""
    checked: bool = False
    note: str = ""  # what the chip stands for when no meaning is written for its value (a step's text)

    @property
    def meaning(self) -> str:
        """What the label says about a step, shown on hover beside the chip."""
        return MEANINGS.get(self.value, self.note)


@dataclass
class Control:
    """One property's control on one step."""

    prop: str
    value: str
    kind: str  # "radio" | "multi" | "constraint"
    choices: list[Choice] = field(default_factory=list)
    constraint_step: str = ""
    constraint_minutes: str = ""
    suggestion: str = ""
    error: str = ""
    error_kind: str = "error"  # "warn": nothing was wrong, nothing was changed (a half-entered constraint)
    focus_key: str = ""

    @property
    def title(self) -> str:
        return PROPERTY_TITLES[self.prop]

    @property
    def done(self) -> bool:
        return bool(self.value)


def build_control(
    prop: str,
    value: str,
    *,
    step: int,
    steps: Sequence[tuple[int, str]],
    suggestion: str = "",
    error: str = "",
    pending_step: str = "",
) -> Control:
    """``steps`` lists the recipe's (index, text) so constraints and dependencies name real steps:
    the steps before this one (a recipe lists its steps in cooking order: in Recipe2Plan every
    prerequisite and every time constraint's step comes before the step, 1,372 and 360 of them),
    and a later step a stored label already names (an import), so the control shows it."""
    named = set(split_steps(value)) if prop == DEPENDENCY and value and value != NONE else set()
    if prop == TIME_CONSTRAINT and value and value != NONE:
        named = set(split_constraints(value))
    others = [(index, text) for index, text in steps if index < step or (index in named and index != step)]
    if prop in RADIO_CHOICES:
        choices = [Choice(v, label, key, v == value) for v, label, key in RADIO_CHOICES[prop]]
        return Control(prop, value, "radio", choices, suggestion=suggestion, error=error)
    if prop == RESOURCE:
        chosen = set(split_resources(value)) if value else set()
        choices = [
            Choice(v, label, key, (v == NONE and value == NONE) or v in chosen) for v, label, key in RESOURCE_CHOICES
        ]
        return Control(prop, value, "multi", choices, suggestion=suggestion, error=error)
    if prop == DEPENDENCY:
        chosen_steps = set(split_steps(value)) if value else set()
        choices = [Choice(NONE, "None", "", value == NONE)]
        # "step 2" with its text on hover: the chips read "None, 0, 1, 2"
        choices += [
            Choice(str(index), f"step {index}", "", index in chosen_steps, note=_short(text)) for index, text in others
        ]
        return Control(prop, value, "multi", choices, suggestion=suggestion, error=error, focus_key="d")
    # TIME_CONSTRAINT: one (step, minutes) pair picked from the recipe's steps; none is a label too.
    constraint_step, minutes = pending_step, ""
    if value and value != NONE:
        k, n = next(iter(split_constraints(value).items()))
        constraint_step, minutes = str(k), str(n)
    elif value == NONE:
        constraint_step = NONE
    choices = [Choice(str(index), f"step {index}: {text[:60]}") for index, text in others]
    return Control(
        prop,
        value,
        "constraint",
        choices,
        constraint_step=constraint_step,
        constraint_minutes=minutes,
        suggestion=suggestion,
        error=error,
        focus_key="t",
    )


def duration_text(seconds: int | None) -> str:
    """A step's duration for the labelling page ("1 h 30 min"); nothing when it has none."""
    return describe_amount(seconds) if seconds else ""


MAX_CONSTRAINT_MINUTES = 999  # as the label format writes N: at most 3 digits


class IncompleteInput(ValueError):
    """The user is half-way (a constraint step without minutes yet): nothing to save, say what's next."""


def value_from_post(prop: str, data: QueryDict | Mapping[str, list[str]]) -> str:
    """The label a control's form posted ("" clears it); ValueError says what is wrong."""
    values = [v for v in _getlist(data, "value") if v != ""]
    if prop in RADIO_CHOICES:
        if not values:  # the page cannot untick a radio: an empty post is not a way to clear it
            raise ValueError(f"choose one of {', '.join(label for _, label, _ in RADIO_CHOICES[prop])}")
        return values[-1]
    if prop in (RESOURCE, DEPENDENCY):
        if NONE in values and len(values) > 1:
            raise ValueError("choose none or some steps/appliances, not both")
        if not values:
            return ""
        if values == [NONE]:
            return NONE
        if prop == RESOURCE:
            return join_resources(values)
        try:
            return join_steps(int(v) for v in values)
        except ValueError:
            raise ValueError("dependencies are step numbers") from None
    step = (_getlist(data, "k") or [""])[-1].strip()
    minutes = (_getlist(data, "n") or [""])[-1].strip()
    if step == "":
        if minutes:
            raise IncompleteInput(
                f"now pick the step this one must start within {minutes} min of (empty the minutes to clear the label)"
            )
        return ""
    if step == NONE:
        return NONE
    if minutes == "":
        raise IncompleteInput(f"now enter within how many minutes after step {step} this step must start")
    # at most a few digits before int(): a longer run of digits is Python's own error, not the user's
    digits = minutes.isascii() and minutes.isdigit() and len(minutes) <= 6
    if not digits or not 0 < int(minutes) <= MAX_CONSTRAINT_MINUTES:
        raise ValueError(f"the minutes must be a whole number from 1 to {MAX_CONSTRAINT_MINUTES}")
    if not (step.isascii() and step.isdigit() and len(step) <= 6):
        raise ValueError("pick the step from the list")
    return f"{int(step)}:{int(minutes)}"


def _getlist(data: QueryDict | Mapping[str, list[str]], key: str) -> list[str]:
    if isinstance(data, QueryDict):
        return data.getlist(key)
    return list(data.get(key, []))


def _short(text: str, most: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"
