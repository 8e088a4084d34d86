"""Each domain's authoring format for the studio, and the studio's questions asked by domain.

A domain's descriptor names its ``Format`` (``authoring="games.studio.formats:TASKS"``); the
studio offers exactly the domains that have one (``domains()``), so a new game gets an editor by
writing a ``Format`` and naming it, and no list here changes. Plain Python (no Django).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from games.engine import registry
from games.studio import authoring, preview

Definition = dict[str, Any]


@dataclass(frozen=True)
class Format:
    label: str  # what one scenario is called: "task", "recipe pair"
    description: str  # the text format, for the editor: "TOML, one task (or a tasks-v1 JSON definition)"
    parse: Callable[[str, str], Definition]  # (name, text) -> definition, or AuthoringError
    export: Callable[[Definition, str], tuple[str, str]]  # (definition, name) -> (file name, text)
    starter: Callable[[], str]  # a small valid example to start from
    preview: Callable[[Definition, int, float], dict[str, Any]]  # (definition, agents, max_seconds)
    # How many agents the preview plans for and "play now" seats: "one" (one cook, one traveller),
    # "chosen" (a menu, 1-4) or "level" (a menu whose default is the definition's own "agents").
    agents: Literal["one", "chosen", "level"] = "one"
    # The options of a game started from the editor ("play now").
    play_options: Mapping[str, Any] | None = field(default=None)
    # What saving adds to a valid definition (derived data the text does not hold).
    on_save: Callable[[Definition], Definition] | None = field(default=None)


TASKS = Format(
    "task",
    "TOML, one task (or a tasks-v1 JSON definition)",
    authoring.parse_tasks,
    authoring.export_tasks,
    authoring.starter_tasks,
    preview.preview_tasks,
    agents="chosen",
    play_options={"constrained": False},
)
RECIPES = Format(
    "recipe pair",
    "JSON: a recipe or a list of recipes",
    authoring.parse_recipes,
    authoring.export_recipes,
    authoring.starter_recipes,
    preview.preview_recipes,
    on_save=authoring.with_reference_plans,
)
KITCHEN = Format(
    "kitchen level",
    "JSON: a level (recipes optional, else from the bundled book)",
    authoring.parse_kitchen,
    authoring.export_kitchen,
    authoring.starter_kitchen,
    preview.preview_kitchen,
    agents="level",
)
ITINERARY = Format(
    "itinerary brief",
    "JSON: one brief over our travel world",
    authoring.parse_itinerary,
    authoring.export_itinerary,
    authoring.starter_itinerary,
    preview.preview_itinerary,
)


def domains() -> list[str]:
    """The domains the studio authors, in the registry's order."""
    return registry.having("authoring")


def format_of(domain: str) -> Format:
    """The domain's format; a domain without one is a LookupError naming those that have one."""
    found = registry.descriptor(domain).part("authoring") if domain in registry.domains() else None
    if found is None:
        raise LookupError(f"the studio does not author {domain!r}; it authors {', '.join(domains())}")
    if not isinstance(found, Format):
        raise TypeError(f"the authoring format of {domain} is not a games.studio.formats.Format")
    return found


def parse(domain: str, name: str, text: str, *, named: bool = False) -> Definition:
    """``named``: ``name`` is the stored scenario's own, not one typed for a new scenario."""
    authoring.check_text(name, text, named=named)
    return format_of(domain).parse(name, text)


def export(domain: str, definition: Definition, name: str) -> tuple[str, str]:
    """(file name, text) in the authoring format (what ``parse`` reads back to the same definition)."""
    return format_of(domain).export(definition, name)


def starter(domain: str) -> str:
    return format_of(domain).starter()


def preview_of(domain: str, definition: Definition, *, agents: int = 1, max_seconds: float = 3.0) -> dict[str, Any]:
    return format_of(domain).preview(definition, agents, max_seconds)
