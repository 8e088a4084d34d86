"""``manage.py plan|replay|describe|score recipes ...``: the Recipe2Plan planners and plan replays.

Instances come from ``--data`` (Recipe2Plan's cooking.json, named ``<Recipe1>_<Recipe2>``) or,
without it, from the stored scenarios (``Cobbler_Pancakes``, ``bundled/Porridge_Omelette`` or a
full slug). Figures are seconds; efficiency, progress, r_efficiency and se are percentages.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.domains.recipes.dataset import read_instances
from games.domains.recipes.kitchen import DefinitionError
from games.domains.recipes.metrics import ratio, timing
from games.domains.recipes.plan import PlanFormatError, execute_plan, parse_plan
from games.domains.recipes.rules import RULES
from games.domains.recipes.state import initial_state
from games.management.domain_command import UsageError
from games.planners import recipes_heuristic, recipes_optimal

Log = Callable[[str], None]


def _switch(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"on", "true", "yes", "1"}:
        return True
    if lowered in {"off", "false", "no", "0"}:
        return False
    raise argparse.ArgumentTypeError(f"{value!r}: write on or off")


def _data_arguments(parser: Any) -> None:
    parser.add_argument(
        "--data", help="Recipe2Plan cooking.json (or its folder); without it, the stored scenarios are used"
    )
    parser.add_argument(
        "--time-constraints", type=_switch, default=True, metavar="on|off", help="check time constraints (default on)"
    )


def load_instances(data: str | None) -> dict[str, dict[str, Any]]:
    """{instance name: definition} from a cooking.json file, or from the stored scenarios."""
    if data:
        path = Path(data)
        if path.is_dir():
            path = path / "cooking.json"
        try:
            return read_instances(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise UsageError(f"{path} does not exist; give --data the path of Recipe2Plan's cooking.json") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise UsageError(f"{path} is not JSON ({error})") from None
        except DefinitionError as error:
            raise UsageError(f"{path}: {error}") from None
    from games.models import Scenario

    found: dict[str, dict[str, Any]] = {}
    for scenario in Scenario.objects.filter(domain="recipes", is_current=True).order_by("slug"):
        found[scenario.slug] = scenario.definition
        found.setdefault(scenario.slug.split("/", 1)[-1], scenario.definition)
    if not found:
        raise UsageError("no recipes scenarios are stored; give --data PATH or run manage.py seed_demo")
    return found


def _pick(instances: dict[str, dict[str, Any]], names: list[str] | None) -> list[str]:
    if not names or names == ["all"] or "all" in names:
        if names is None:
            raise UsageError("name an --instance (e.g. --instance Cobbler_Pancakes) or --instance all")
        return [name for name in instances if "/" not in name] or list(instances)
    unknown = [name for name in names if name not in instances]
    if unknown:
        sample = ", ".join(list(instances)[:5])
        raise UsageError(f"unknown instance {', '.join(unknown)}; instances are named like {sample}")
    return names


# --- plan ---------------------------------------------------------------------------------------------


def configure_plan(parser: Any) -> None:
    _data_arguments(parser)
    parser.add_argument("--instance", action="append", help="instance name (repeatable) or 'all'")
    parser.add_argument("--planner", choices=["heuristic", "optimal"], default="optimal")
    parser.add_argument("--time-limit", type=float, default=30.0, help="CP-SAT seconds per instance (optimal)")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT threads (1 = reproducible)")
    parser.add_argument("--chunks", type=int, default=2, help="chunks allowed per interruptible step (optimal)")


def plan_instance(name: str, definition: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    constraints = options["time_constraints"]
    if options["planner"] == "heuristic":
        found = recipes_heuristic.plan(definition, time_constraints=constraints)
        result: dict[str, Any] = {
            "instance": name,
            "planner": "heuristic",
            "time_constraints": constraints,
            "makespan_seconds": found.makespan,
            "optimal": False,
            "gap": None,
            "plan": [list(item) for item in found.plan] if found.plan else None,
            "solve_seconds": round(found.solve_seconds, 4),
            "notes": found.notes,
        }
    else:
        solved = recipes_optimal.solve(
            definition,
            time_constraints=constraints,
            time_limit=options["time_limit"],
            workers=options["workers"],
            chunks=options["chunks"],
        )
        result = {
            "instance": name,
            "planner": "optimal",
            "time_constraints": constraints,
            "makespan_seconds": solved.makespan,
            "optimal": solved.optimal,
            "gap": solved.gap,
            "lower_bound_seconds": solved.bound,
            "plan": [list(item) for item in solved.plan] if solved.plan else None,
            "solve_seconds": round(solved.solve_seconds, 4),
            "notes": solved.notes,
        }
    if result["plan"] is not None:
        check = execute_plan(definition, result["plan"], time_constraints=constraints)
        result["replay_feasible"] = check.feasible and check.state.status == "success"
    return result


def run_plan(options: dict[str, Any], log: Log) -> Any:
    if options.get("time_limit") is not None and options["time_limit"] <= 0:
        raise UsageError("--time-limit must be a positive number of seconds")
    instances = load_instances(options.get("data"))
    names = _pick(instances, options.get("instance"))
    results = []
    for name in names:
        result = plan_instance(name, instances[name], options)
        log(
            f"{name}: {result['planner']} makespan {result['makespan_seconds']} s"
            f"{' (optimal)' if result['optimal'] else ''} in {result['solve_seconds']:.2f} s"
        )
        results.append(result)
    single = options.get("instance") and len(options["instance"]) == 1 and options["instance"] != ["all"]
    return results[0] if single else results


# --- replay -------------------------------------------------------------------------------------------


def configure_replay(parser: Any) -> None:
    _data_arguments(parser)
    parser.add_argument("--plans", help="a published plan file: {instance: {plan_wo_restriction, plan_w_restriction}}")
    parser.add_argument("--key", default="plan_wo_restriction", help="which plan of each instance to replay")
    parser.add_argument("--instance", help="replay one plan list (--plan) for this instance")
    parser.add_argument("--plan", help="a JSON list of [step, recipe, duration_seconds, start_seconds]")
    parser.add_argument(
        "--against-optimal", action="store_true", help="also compare with the optimal plan (solves each instance)"
    )
    parser.add_argument(
        "--time-limit", type=float, default=30.0, help="CP-SAT seconds per instance (--against-optimal)"
    )


def _with_reference(definition: dict[str, Any], constraints: bool) -> dict[str, Any]:
    reference = recipes_heuristic.plan_items(definition, time_constraints=constraints)
    key = "with_constraints" if constraints else "without_constraints"
    plans = dict(definition.get("reference_plans") or {})
    if reference is not None and key not in plans:
        plans[key] = [list(item) for item in reference]
    return {**definition, "reference_plans": plans}


def replay_one(
    name: str, definition: dict[str, Any], raw_plan: Any, constraints: bool, optimal_limit: float | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"instance": name, "time_constraints": constraints}
    if raw_plan is None:
        entry.update(
            feasible=False,
            success=False,
            progress=0.0,
            makespan_seconds=None,
            efficiency=None,
            r_efficiency=None,
            se=0.0,
            error={"kind": "missing", "message": "no plan for this instance (null)"},
        )
        return entry
    try:
        items = parse_plan(raw_plan)
    except PlanFormatError as error:
        entry.update(
            feasible=False,
            success=False,
            progress=0.0,
            makespan_seconds=None,
            efficiency=None,
            r_efficiency=None,
            se=0.0,
            error={"kind": "format", "message": str(error)},
        )
        return entry
    definition = _with_reference(definition, constraints)
    run = execute_plan(definition, items, time_constraints=constraints)
    result = RULES.result(run.state)
    entry.update(
        feasible=run.feasible,
        success=result["success"],
        error={"kind": run.error.kind, "message": run.error.message} if run.error else None,
        progress=result["progress"],
        makespan_seconds=result["makespan_seconds"],
        efficiency=result["efficiency"],
        r_efficiency=result["r_efficiency"],
        se=result["se"],
        actions=run.executed,
    )
    if optimal_limit is not None:
        solved = recipes_optimal.solve(definition, time_constraints=constraints, time_limit=optimal_limit)
        entry["optimal_makespan_seconds"] = solved.makespan
        entry["optimal_proven"] = solved.optimal
        if solved.plan:
            # Against the whole optimal plan: for complete plans the executed and autonomous seconds
            # are fixed, so efficiency only falls with the makespan and the optimum scores 100 %.
            best = execute_plan(definition, solved.plan, time_constraints=constraints)
            relative = ratio(timing(run.state)["efficiency"], timing(best.state)["efficiency"])
            entry["efficiency_vs_optimal"] = None if relative is None else round(100 * relative, 2)
    return entry


def run_replay(options: dict[str, Any], log: Log) -> Any:
    constraints = options["time_constraints"]
    instances = load_instances(options.get("data"))
    limit = options["time_limit"] if options.get("against_optimal") else None
    if options.get("plan"):
        if not options.get("instance"):
            raise UsageError("--plan needs --instance NAME (the instance the plan is for)")
        name = _pick(instances, [options["instance"]])[0]
        raw = _read_json(options["plan"], "--plan")
        return replay_one(name, instances[name], raw, constraints, limit)
    if not options.get("plans"):
        raise UsageError("give --plans PLANS.json (a published plan file) or --instance NAME --plan PLAN.json")
    published = _read_json(options["plans"], "--plans")
    if not isinstance(published, dict):
        raise UsageError("--plans must be a JSON object mapping instance names to {plan_wo_restriction, ...}")
    results = []
    for name, plans in published.items():
        if name not in instances:
            results.append(
                {
                    "instance": name,
                    "time_constraints": constraints,
                    "feasible": False,
                    "success": False,
                    "progress": 0.0,
                    "makespan_seconds": None,
                    "efficiency": None,
                    "r_efficiency": None,
                    "se": 0.0,
                    "error": {"kind": "unknown_instance", "message": f"{name} is not an instance of the data"},
                }
            )
            continue
        raw = plans.get(options["key"]) if isinstance(plans, dict) else None
        results.append(replay_one(name, instances[name], raw, constraints, limit))
    _summarise(results, log)
    return results


def _summarise(results: list[dict[str, Any]], log: Log) -> None:
    if not results:
        return
    count = len(results)
    feasible, successful = sum(r["feasible"] for r in results), sum(r["success"] for r in results)
    log(f"{count} plans: {feasible} feasible, {successful} successful")
    for field in ("progress", "efficiency", "r_efficiency", "se"):
        values = [r[field] or 0.0 for r in results]
        log(f"  mean {field}: {statistics.mean(values):.2f} %")


def _read_json(path: str, flag: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{flag} {path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{flag} {path} is not JSON ({error})") from None


# --- describe and score -----------------------------------------------------------------------------


def configure_describe(parser: Any) -> None:
    _data_arguments(parser)
    parser.add_argument("--instance", action="append", help="instance name (repeatable) or 'all'")


def run_describe(options: dict[str, Any], log: Log) -> Any:
    instances = load_instances(options.get("data"))
    described = []
    for name in _pick(instances, options.get("instance") or ["all"]):
        state = initial_state(instances[name])
        steps = state.kitchen.all_steps()
        described.append(
            {
                "instance": name,
                "recipes": [recipe.name for recipe in state.kitchen.recipes],
                "steps": len(steps),
                "autonomous_steps": sum(s.autonomous for s in steps),
                "interruptible_steps": sum(s.interruptible for s in steps),
                "time_constraints": sum(len(s.time_constraints) for s in steps),
                "total_seconds": sum(s.duration for s in steps),
                "cook_seconds": sum(s.duration for s in steps if not s.autonomous),
                "appliances": sorted({u.appliance for s in steps for u in s.uses}),
            }
        )
    return described


def configure_score(parser: Any) -> None:
    _data_arguments(parser)
    parser.add_argument("--instance", required=True, help="instance name")
    parser.add_argument("--actions", required=True, help="a text file of Step(step, recipe, HH:MM:SS, HH:MM:SS) lines")


def run_score(options: dict[str, Any], log: Log) -> Any:
    instances = load_instances(options.get("data"))
    name = _pick(instances, [options["instance"]])[0]
    try:
        text = Path(options["actions"]).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"--actions {options['actions']} does not exist") from None
    constraints = options["time_constraints"]
    definition = _with_reference(instances[name], constraints)
    state = RULES.initial_state(definition, options={"time_constraints": constraints, "max_rejections": 0})
    transition = RULES.act(state, 0, text, 0)
    state = transition.state
    while not state.over and RULES.next_deadline(state) is not None:
        state = RULES.advance(state, RULES.next_deadline(state) or 0).state
    rejection = transition.rejection
    return {
        "instance": name,
        **RULES.result(state),
        "error": {"kind": rejection.kind, "message": rejection.message} if rejection else None,
    }
