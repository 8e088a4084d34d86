"""Small definitions for tests, written inline so each test shows the situation it checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from games.domains.tasks.content import read_task

CONTENT = Path(__file__).resolve().parents[3] / "content" / "tasks"


def task(name: str, actions: list[tuple[str, int, bool, list[str]]], appliances: list[str] | None = None) -> dict:
    """A one-task definition from (text, minutes, background, requires) rows."""
    return {
        "format": "tasks-v1",
        "tasks": [
            {
                "name": name,
                "title": name.title(),
                "goal": f"Finish {name}.",
                "appliances": appliances or [],
                "actions": [
                    {"name": text, "minutes": minutes, "background": background, "requires": requires}
                    for text, minutes, background, requires in actions
                ],
            }
        ],
    }


def bundled(name: str) -> dict[str, Any]:
    return read_task(name, (CONTENT / f"{name}.toml").read_text())


def bundled_names() -> list[str]:
    return sorted(path.stem for path in CONTENT.glob("*.toml"))


RICE = task(
    "rice",
    [
        ("wash dish", 3, False, []),
        ("pick rice", 2, False, []),
        ("cook rice in pot", 4, True, ["pick rice"]),
        ("add rice to dish", 2, False, ["cook rice in pot", "wash dish"]),
    ],
    appliances=["pot"],
)

SOUP = task(
    "soup",
    [
        ("wash dish", 1, False, []),
        ("pick carrot", 1, False, []),
        ("cook carrot in pot", 5, True, ["pick carrot"]),
        ("add carrot to dish", 1, False, ["cook carrot in pot", "wash dish"]),
    ],
    appliances=["pot"],
)
