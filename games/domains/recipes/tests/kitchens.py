"""Small hand-written kitchens for the rule tests (seconds)."""

from __future__ import annotations

from typing import Any


def step(
    index: int,
    duration: int,
    *,
    auto: bool = False,
    split: bool = False,
    needs: tuple[int, ...] = (),
    within: dict[int, int] | None = None,
    physical: dict[str, Any] | None = None,
    text: str = "",
) -> dict[str, Any]:
    return {
        "index": index,
        "text": text or f"step {index}",
        "duration": duration,
        "prerequisites": list(needs),
        "time_constraints": {str(k): v for k, v in (within or {}).items()},
        "interruptible": split,
        "autonomous": auto,
        "physical": physical or {},
    }


OVEN_350 = {"oven": {"require": {}, "update": {"temperature": 350}}}
BAKE_350 = {"oven": {"require": {"temperature": 350}, "update": {}}}
STOVE = {"stove": {"require": {}, "update": {}}}

BAKE = {
    "name": "Bake",
    "steps": [
        step(0, 600, auto=True, physical=OVEN_350, text="Preheat the oven to 350."),
        step(1, 300, split=True, text="Mix the batter."),
        step(2, 60, needs=(1,), text="Pour into the tin."),
        step(3, 1200, auto=True, needs=(0, 2), physical=BAKE_350, text="Bake."),
    ],
}
SOUP = {
    "name": "Soup",
    "steps": [
        step(0, 240, split=True, text="Chop the vegetables."),
        step(1, 300, auto=True, needs=(0,), physical=STOVE, text="Heat the pot."),
        step(2, 120, needs=(1,), within={1: 60}, physical=STOVE, text="Stir in the vegetables."),
    ],
}
MUFFINS = {
    "name": "Muffins",
    "steps": [
        step(0, 600, auto=True, physical=OVEN_350, text="Preheat the oven to 350."),
        step(1, 900, auto=True, needs=(0,), physical=BAKE_350, text="Bake the muffins."),
    ],
}
ROAST = {
    "name": "Roast",
    "steps": [
        step(0, 600, auto=True, physical={"oven": {"require": {}, "update": {"temperature": 425}}}),
        step(1, 900, auto=True, needs=(0,), physical={"oven": {"require": {"temperature": 425}, "update": {}}}),
    ],
}


def kitchen(*recipes: dict[str, Any]) -> dict[str, Any]:
    return {"recipes": list(recipes or (BAKE, SOUP))}
