"""``manage.py plan tasks`` (greedy oracle or exact optimum) and ``describe tasks`` for task combinations.

    python manage.py plan tasks --tasks cooking1,cooking2 --planner optimal --json
    python manage.py plan tasks --data ../shared/datasets/timearena/dependencygraph.json \\
        --tasks cooking1 --tasks cooking1,cooking2 --planner greedy --constrained --agents 2 --json

``--tasks`` may be repeated: the output is then a JSON list in the same order. Without ``--data``
the tasks are read from the stored scenarios (``cooking1`` means ``timearena/cooking1``, then
``bundled/cooking1``; a full slug such as ``bundled/make-tea`` works too). ``--data`` takes
TimeArena's dependencygraph.json, one of our TOML task files, or a folder of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.domains.tasks.content import read_task
from games.domains.tasks.definition import DefinitionError, compile_definition, compose
from games.domains.tasks.rules import RULES
from games.domains.tasks.timearena import FormatProblem, read
from games.management.domain_command import UsageError
from games.planners.tasks_planning import PLANNERS, run


def configure_plan(parser: Any) -> None:
    parser.add_argument(
        "--tasks",
        action="append",
        required=True,
        metavar="NAMES",
        help="comma-separated tasks played together, e.g. cooking1,cooking2; repeat for more combinations",
    )
    parser.add_argument("--planner", choices=PLANNERS, default="optimal")
    parser.add_argument("--data", help="dependencygraph.json, a TOML task file or a folder of them")
    parser.add_argument("--constrained", action="store_true", help="one pot, one fryer, one oven in the kitchen")
    parser.add_argument("--agents", type=int, default=1, help="number of agents (default 1)")
    parser.add_argument(
        "--max-seconds", type=float, default=10.0, help="solver time limit per combination (default 10)"
    )


def run_plan(options: dict[str, Any], log: Callable[[str], None]) -> Any:
    if options["agents"] < 1:
        raise UsageError("--agents must be at least 1")
    combos = [[name.strip() for name in group.split(",") if name.strip()] for group in options["tasks"]]
    if any(not combo for combo in combos):
        raise UsageError("--tasks needs at least one task name, e.g. --tasks cooking1,cooking2")
    lookup = _from_file(Path(options["data"])) if options.get("data") else _from_database
    results = []
    for combo in combos:
        definitions = [lookup(name) for name in combo]
        try:
            result = run(
                definitions,
                planner=options["planner"],
                agents=options["agents"],
                constrained=options["constrained"],
                max_seconds=options["max_seconds"],
            )
        except DefinitionError as error:
            raise UsageError(str(error)) from None
        log(
            f"{','.join(combo)}: {options['planner']} makespan {result['makespan']} "
            f"(optimal: {result['optimal']}, feasible: {result['feasible']}) in {result['solve_seconds']:.3f} s"
        )
        results.append(result)
    return results if len(results) > 1 else results[0]


def configure_describe(parser: Any) -> None:
    parser.add_argument("--tasks", required=True, metavar="NAMES", help="comma-separated tasks played together")
    parser.add_argument("--data", help="dependencygraph.json, a TOML task file or a folder of them")
    parser.add_argument("--constrained", action="store_true", help="one of each appliance")


def run_describe(options: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    """The game as players see it: renamed objects, appliance pools, actions and prerequisites."""
    names = [name.strip() for name in options["tasks"].split(",") if name.strip()]
    if not names:
        raise UsageError("--tasks needs at least one task name, e.g. --tasks cooking1,cooking2")
    lookup = _from_file(Path(options["data"])) if options.get("data") else _from_database
    try:
        definition = compose([lookup(name) for name in names])
        scenario = compile_definition(definition, constrained=options["constrained"])
    except DefinitionError as error:
        raise UsageError(str(error)) from None
    state = RULES.initial_state(definition, options={"constrained": options["constrained"]})
    log(f"{definition['title']}: {len(scenario.actions)} actions, {scenario.total_minutes} minutes of work")
    return {
        "title": definition["title"],
        "constrained": options["constrained"],
        "time_limit": state.options.time_limit,
        "total_minutes": scenario.total_minutes,
        "tasks": [{"name": t.name, "title": t.title, "goal": t.goal} for t in scenario.tasks],
        "objects": [
            {"name": o.name, "label": o.label, "task": o.task, "appliance": o.appliance, "capacity": o.capacity}
            for o in scenario.objects
        ],
        "actions": [
            {
                "action": a.text,
                "task": a.task,
                "minutes": a.minutes,
                "background": a.background,
                "requires": [scenario.actions[r].text for r in a.requires],
            }
            for a in scenario.actions
        ],
    }


def _from_file(path: Path) -> Callable[[str], dict[str, Any]]:
    if not path.exists():
        raise UsageError(f"--data {path}: no such file or folder")
    try:
        if path.is_dir():
            files = sorted(path.glob("*.toml"))
            if not files:
                raise UsageError(f"--data {path}: the folder has no .toml task files")
            definitions = {f.stem: read_task(f.stem, f.read_text(encoding="utf-8")) for f in files}
        elif path.suffix == ".toml":
            definitions = {path.stem: read_task(path.stem, path.read_text(encoding="utf-8"))}
        else:
            definitions = read(json.loads(path.read_text(encoding="utf-8")))[0]
    except json.JSONDecodeError as error:
        raise UsageError(f"--data {path}: line {error.lineno}: {error.msg}") from None
    except (FormatProblem, DefinitionError) as error:
        raise UsageError(f"--data {path}: {error}") from None

    def lookup(name: str) -> dict[str, Any]:
        if name not in definitions:
            raise UsageError(f"no task {name!r} in {path}; it has: {', '.join(definitions)}")
        return definitions[name]

    return lookup


def _from_database(name: str) -> dict[str, Any]:
    from django.db import DatabaseError

    from games.models import Scenario

    slugs = [name] if "/" in name else [f"timearena/{name}", f"bundled/{name}"]
    for slug in slugs:
        try:
            scenario = Scenario.objects.filter(slug=slug, is_current=True, domain="tasks").first()
        except DatabaseError as error:
            raise UsageError(f"cannot read the stored scenarios ({error}); run 'manage.py migrate' first") from None
        if scenario is not None:
            return dict(scenario.definition)
    raise UsageError(
        f"no stored task {name!r} (looked for {' and '.join(slugs)}); import it with "
        "'manage.py import_dataset timearena PATH', run 'manage.py seed_demo', or pass --data PATH"
    )
