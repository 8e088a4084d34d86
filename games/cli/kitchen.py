"""``manage.py describe kitchen`` and ``manage.py benchmark kitchen``.

``--level`` names a stored scenario (``cuisineworld/level_3``, ``bundled/warm-up``); a bare name
(``level_3``, ``warm-up``) is looked up as either. With ``--data DIR`` the level is read straight
from a CuisineWorld folder instead of the database. Bundled levels and, when present, the public
data under ``settings.DATASETS_DIR`` are found even before anything was imported.

To add a dispatcher kind to the benchmark (e.g. an LLM), register a factory in ``DISPATCHERS``:
``name -> (help, factory(options, log) -> Dispatcher)``, and add its options in
``configure_benchmark``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings

from games.domains.kitchen.levels import read_levels
from games.domains.kitchen.state import build_level
from games.domains.kitchen.world import DEFAULT_ALPHAS, DEFAULT_BETA, TOOL_KINDS, LevelError, derived_parameters
from games.importers import ImportProblem, cuisineworld
from games.importers.bundled_kitchen import KITCHEN_DIR
from games.management.domain_command import UsageError
from games.planners.kitchen_dispatcher import Dispatcher, heuristic, random_dispatcher
from games.planners.kitchen_sweep import alpha_key, sweep

Log = Callable[[str], None]
DispatcherFactory = Callable[[dict[str, Any], Log], Dispatcher]

DISPATCHERS: dict[str, tuple[str, DispatcherFactory]] = {
    "heuristic": ("the heuristic dispatcher (SPEC section 6)", lambda options, log: heuristic),
    "random": ("uniform over legal commands (the study baseline)", lambda options, log: random_dispatcher),
}


def _level_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", required=True, help="cuisineworld/level_3, bundled/warm-up, or a bare name")
    parser.add_argument("--data", help="read the level from this CuisineWorld folder instead of the database")
    parser.add_argument(
        "--alpha",
        type=_alpha,
        action="append",
        help=f"α values (repeatable; default: {' '.join(map(str, DEFAULT_ALPHAS))})",
    )
    parser.add_argument("--beta", type=float, default=DEFAULT_BETA, help="β of the lifetime formula (default 2.5)")


def _alpha(text: str) -> str:
    """An α value, kept as written so reports are keyed the way the user typed it."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: α must be positive")
    return text.strip()


def _alphas(options: dict[str, Any]) -> list[float | str]:
    alphas: list[float | str] = list(options.get("alpha") or DEFAULT_ALPHAS)
    return alphas


def find_level(name: str, data: str | None = None) -> tuple[str, dict[str, Any]]:
    """(slug, definition) for ``name``; raises UsageError saying where it looked."""
    if data:
        folder = Path(data)
        if not folder.exists():
            raise UsageError(f"{data} does not exist")
        try:
            converted = cuisineworld.levels(folder)
        except ImportProblem as error:
            raise UsageError(str(error)) from None
        key = name.removeprefix("cuisineworld/")
        if key not in converted:
            raise UsageError(f"no level {key!r} in {data}; levels: {', '.join(converted)}")
        definition, remarks = converted[key]
        if definition is None:
            raise UsageError(f"{key} cannot be played: {'; '.join(remarks)}")
        return f"cuisineworld/{key}", definition

    from games.models import Scenario

    candidates = [name] if "/" in name else [f"bundled/{name}", f"cuisineworld/{name}"]
    for slug in candidates:
        scenario = Scenario.objects.filter(slug=slug, is_current=True, domain="kitchen").first()
        if scenario is not None:
            return slug, scenario.definition
    for slug in candidates:
        source, _, key = slug.partition("/")
        if source == "bundled":
            bundled = read_levels(KITCHEN_DIR)
            if key in bundled:
                return slug, bundled[key]
        folder = Path(settings.DATASETS_DIR) / "cuisineworld"
        if source == "cuisineworld" and folder.is_dir():
            definition, _ = cuisineworld.levels(folder).get(key, (None, []))
            if definition is not None:
                return slug, definition
    raise UsageError(
        f"no kitchen level {name!r}; use a slug such as bundled/warm-up or cuisineworld/level_3 "
        "(import the public data with: manage.py import_dataset cuisineworld ../shared/datasets/cuisineworld)"
    )


def configure_describe(parser: argparse.ArgumentParser) -> None:
    _level_arguments(parser)


def run_describe(options: dict[str, Any], log: Log) -> dict[str, Any]:
    slug, definition = find_level(options["level"], options.get("data"))
    try:
        level = build_level(definition, seed=0, options={"beta": options["beta"]})
    except LevelError as error:
        raise UsageError(f"{slug}: {error}") from None
    return {
        "level": slug,
        "tools": [name for name, _ in level.locations],
        "tool_kinds": {
            kind: {
                "count": sum(1 for _, k in level.locations if k == kind),
                "busy_steps": TOOL_KINDS[kind].busy_steps,
                "capacity": TOOL_KINDS[kind].capacity,
            }
            for kind in dict.fromkeys(k for _, k in level.locations)
        },
        "dishes": list(level.dishes),
        "beta": options["beta"],
        "by_alpha": {
            alpha_key(alpha): derived_parameters(level.dishes, level.recipes, float(alpha), options["beta"])
            for alpha in _alphas(options)
        },
    }


def configure_benchmark(parser: argparse.ArgumentParser) -> None:
    _level_arguments(parser)
    parser.add_argument("--agents", type=int, help="number of agents (default: the level's)")
    parser.add_argument(
        "--dispatcher",
        default="heuristic",
        choices=sorted(DISPATCHERS),
        help="; ".join(f"{name}: {text}" for name, (text, _) in sorted(DISPATCHERS.items())),
    )
    parser.add_argument("--episodes", type=int, default=1, help="episodes per α (seeds 0..K-1; default 1)")
    parser.add_argument("--max-steps", type=int, default=None, help="steps per episode (default: the level's, 60)")


def run_benchmark(options: dict[str, Any], log: Log) -> dict[str, Any]:
    slug, definition = find_level(options["level"], options.get("data"))
    agents = options.get("agents") or int(definition.get("agents", 2))
    if not 1 <= agents <= 8:
        raise UsageError("--agents must be between 1 and 8")
    episodes = options.get("episodes") or 1
    if episodes < 1:
        raise UsageError("--episodes must be at least 1")
    name = options.get("dispatcher") or "heuristic"
    if name not in DISPATCHERS:
        raise UsageError(f"unknown dispatcher {name!r}; choose from {', '.join(sorted(DISPATCHERS))}")
    dispatcher = DISPATCHERS[name][1](options, log)
    game_options: dict[str, Any] = {"beta": options.get("beta", DEFAULT_BETA)}
    if options.get("max_steps"):
        game_options["max_steps"] = options["max_steps"]
    log(f"kitchen benchmark: {slug}, {agents} agents, {name} dispatcher, {episodes} episode(s) per α")
    try:
        result = sweep(
            definition, dispatcher, agents=agents, episodes=episodes, alphas=_alphas(options), options=game_options
        )
    except LevelError as error:
        raise UsageError(f"{slug}: {error}") from None
    return {"level": slug, "dispatcher": name, **result}
