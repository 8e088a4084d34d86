"""``manage.py score|plan|describe itinerary``: score a written plan, run the planner, show a brief.

A brief is named ``--sample typeN:INDEX`` (the index in data_typeN.json) or ``--slug`` (any stored
scenario, e.g. ``bundled/grand-tour``). With ``--data DIR`` the published files are read directly
(no import needed); otherwise the imported scenarios are used.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.domains.itinerary.samples import definition_from_sample, parse_sample_name, sample_slug
from games.domains.itinerary.tools import check_plan
from games.domains.itinerary.world import WorldError
from games.importers import ImportProblem
from games.management.domain_command import UsageError
from games.planners.itinerary_search import plan as run_planner

SCORE_FIELDS = ("executability", "constraints", "efficiency", "total", "failed_checks")


def _add_brief_arguments(parser: Any) -> None:
    parser.add_argument(
        "--data", metavar="DIR", help="read the published files in DIR (travel.db, data_type1/2/3.json) directly"
    )
    parser.add_argument(
        "--sample", action="append", default=[], metavar="typeN:INDEX", help="a published sample, e.g. type2:5"
    )
    parser.add_argument("--slug", action="append", default=[], help="a stored scenario, e.g. bundled/grand-tour")


def _briefs(options: dict[str, Any], log: Callable[[str], None]) -> list[tuple[str, dict[str, Any]]]:
    names = list(options.get("sample") or [])
    slugs = list(options.get("slug") or [])
    if not names and not slugs:
        raise UsageError("name a brief: --sample typeN:INDEX (e.g. type1:0) or --slug bundled/<name>")
    parsed = []
    for name in names:
        try:
            parsed.append((name, *parse_sample_name(name)))
        except ValueError as error:
            raise UsageError(str(error)) from None
    briefs: list[tuple[str, dict[str, Any]]] = []
    if options.get("data"):
        if slugs:
            raise UsageError("--slug reads stored scenarios; with --data name published samples with --sample")
        from games.importers.itinerarybench_files import read_published

        try:
            published = read_published(Path(options["data"]))
        except ImportProblem as error:
            raise UsageError(str(error)) from None
        for name, kind, index in parsed:
            samples = published.samples[kind]
            if index >= len(samples):
                raise UsageError(f"{name}: data_type{kind}.json has {len(samples)} samples (0-{len(samples) - 1})")
            briefs.append(
                (f"type{kind}:{index}", definition_from_sample(kind, index, samples[index], published.tables))
            )
        return briefs
    from games.models import Scenario
    from games.scenarios import current_scenario

    wanted = [(f"type{kind}:{index}", sample_slug(kind, index)) for _name, kind, index in parsed]
    wanted += [(slug, slug) for slug in slugs]
    for label, slug in wanted:
        try:
            scenario = current_scenario(slug)
        except Scenario.DoesNotExist:
            raise UsageError(
                f"no scenario {slug!r}; import the data first (manage.py import_dataset itinerarybench "
                "../shared/datasets/itinerarybench) or pass --data DIR"
            ) from None
        if scenario.domain != "itinerary":
            raise UsageError(f"{slug} is a {scenario.domain} scenario, not an itinerary brief")
        briefs.append((label, scenario.definition))
    return briefs


# -- score ----------------------------------------------------------------------------------------
def configure_score(parser: Any) -> None:
    _add_brief_arguments(parser)
    parser.add_argument("--plan", required=True, metavar="PLAN.txt", help="the plan: one action per line")
    parser.add_argument("--checks", action="store_true", help="also list every check with pass/fail")


def run_score(options: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    briefs = _briefs(options, log)
    if len(briefs) != 1:
        raise UsageError("score one brief at a time: give a single --sample or --slug")
    path = Path(options["plan"])
    if not path.is_file():
        raise UsageError(f"{path} does not exist; write the plan there, one action per line")
    try:
        result = check_plan(briefs[0][1], path.read_text(encoding="utf-8"))
    except WorldError as error:
        raise UsageError(str(error)) from None
    for rejected in result["rejected_lines"]:
        log(f"line {rejected['line']}: {rejected['message']}")
    output = {key: result[key] for key in SCORE_FIELDS}
    if options.get("checks"):
        output["checks"] = result["checks"]
    return output


# -- plan -----------------------------------------------------------------------------------------
def configure_plan(parser: Any) -> None:
    _add_brief_arguments(parser)


def run_plan(options: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any] | list[dict[str, Any]]:
    results = []
    for label, definition in _briefs(options, log):
        found = run_planner(definition)
        if found.feasible:
            checked = check_plan(definition, found.actions)
            score = {key: checked[key] for key in SCORE_FIELDS}
        else:
            log(f"{label}: no feasible plan ({found.reason})")
            score = {"executability": 0.0, "constraints": 0.0, "efficiency": 0.0, "total": 0.0, "failed_checks": []}
        results.append(
            {
                "sample": label,
                "feasible": found.feasible,
                "plan": found.actions,
                "score": score,
                "solve_seconds": round(found.solve_seconds, 4),
            }
        )
    return results[0] if len(results) == 1 else results


# -- describe -------------------------------------------------------------------------------------
def configure_describe(parser: Any) -> None:
    _add_brief_arguments(parser)


def run_describe(options: dict[str, Any], log: Callable[[str], None]) -> list[dict[str, Any]]:
    from games.domains.itinerary.rules import RULES

    described = []
    for label, definition in _briefs(options, log):
        state = RULES.initial_state(definition)
        described.append({"sample": label, "observation": RULES.observe(state, 0).text})
    return described
