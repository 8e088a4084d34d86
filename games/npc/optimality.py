"""Benchmark episodes measured against the certified optimum of generated instances.

A generated instance saved as a scenario keeps its certificate (``Scenario.certificate``, written by
``games.generators.family.certificate``): the solver's optimum (proven, or the best plan found with
its lower bound), the reference heuristic's value, and the conditions the optimum holds for. An
episode on such a scenario that finished under those conditions is compared through its domain
generator's ``achieved`` (tasks: minutes to finish; recipes: the makespan of a successful episode):
its ratio is its value over the optimum, 1.00 being optimal (below 1 only where the optimum is not
proven and the agent found a better plan). Domains whose generator has no ``achieved`` (the kitchen
has no exact solver; itinerary scores are not makespans) get no comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from statistics import mean
from typing import Any

from games.generators import family
from games.generators.knobs import KnobError
from games.models import Scenario


def _generator(domain: str) -> Any:
    """The domain's generator module, or None for a domain without one."""
    try:
        return family.module(domain)
    except KnobError:
        return None


def _only_scenario(row: Mapping[str, Any]) -> str | None:
    scenarios = row.get("item", {}).get("scenarios") or []
    return scenarios[0] if len(scenarios) == 1 else None


# (scenario, its certificate, the episode against it: ``measured``)
Compared = tuple[str, dict[str, Any], dict[str, Any]]


def compared(domain: str, rows: Sequence[Mapping[str, Any]]) -> list[Compared | None]:
    """For each row (aligned): its scenario, that scenario's certificate and the episode in the
    optimum's terms (``measured``: value and ratio None when it did not finish under the optimum's
    conditions); None for a row with no certified scenario or that could not be played."""
    slugs = {slug for slug in map(_only_scenario, rows) if slug}
    if getattr(_generator(domain), "achieved", None) is None or not slugs:
        return [None] * len(rows)
    stored = Scenario.objects.current().filter(slug__in=slugs, certificate__isnull=False)
    certificates: dict[str, dict[str, Any]] = {
        slug: certificate for slug, certificate in stored.values_list("slug", "certificate") if certificate
    }
    out: list[Compared | None] = []
    for row in rows:
        slug = _only_scenario(row)
        if row.get("error") or slug is None or slug not in certificates:
            out.append(None)
            continue
        certificate = certificates[slug]
        found = measured(domain, slug, certificate, row.get("metrics") or {}, row["item"].get("agents", 1))
        out.append(None if found is None else (slug, certificate, found))
    return out


# The columns of an episode against the optimum, in benchmark CSVs and study exports (``columns``).
COLUMNS = ["optimum", "optimum_proven", "optimum_lower_bound", "optimum_ratio"]


def columns(found: Mapping[str, Any] | None) -> list[Any]:
    """``COLUMNS``' values for one episode (``measured``, or None: all empty)."""
    if found is None:
        return ["", "", "", ""]
    bound, ratio = found["lower_bound"], found["ratio"]
    return [found["optimum"], found["optimal"], "" if bound is None else bound, "" if ratio is None else ratio]


def against_optimum(domain: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Per instance and overall: how far the episodes' makespans are from the certified optimum;
    None when no episode was played on a scenario with a certificate."""
    played: dict[str, tuple[dict[str, Any], list[float | None]]] = {}
    teams: set[tuple[int, int]] = set()  # (the optimum's agents, the episode's) where they differ
    for row, found in zip(rows, compared(domain, rows), strict=True):
        if found is not None:
            slug, certificate, episode = found
            played.setdefault(slug, (certificate, []))[1].append(episode["value"])
            wanted, had = certificate.get("basis", {}).get("agents"), row["item"].get("agents", 1)
            if isinstance(wanted, int) and wanted != had:
                teams.add((wanted, had))
    if not played:
        return None
    show = getattr(_generator(domain), "show", None)
    instances = [_instance(slug, certificate, values, show) for slug, (certificate, values) in sorted(played.items())]
    ratios = [i["mean_ratio"] for i in instances if i["mean_ratio"] is not None]
    heuristic = [i["heuristic_ratio"] for i in instances if i["heuristic_ratio"] is not None]
    return {
        "objective": instances[0]["objective"],
        "instances": instances,
        "episodes": sum(i["episodes"] for i in instances),
        "compared": sum(i["compared"] for i in instances),
        "at_optimum": sum(i["at_optimum"] for i in instances),
        "proven": sum(1 for i in instances if i["optimal"]),
        "mean_ratio": round(mean(ratios), 3) if ratios else None,
        "heuristic_ratio": round(mean(heuristic), 3) if heuristic else None,
        # why episodes were not compared: a team of another size than the optimum's ("No episode
        # finished under the optimum's conditions" said nothing of the 2-agent optimum and 1 agent)
        "teams": "; ".join(
            f"the optimum is for {wanted} agent{'' if wanted == 1 else 's'} and episodes played with {had}"
            for wanted, had in sorted(teams)
        ),
    }


def _instance(
    slug: str,
    certificate: Mapping[str, Any],
    values: Sequence[float | None],
    show: Callable[[float], str] | None = None,
) -> dict[str, Any]:
    """One instance's row; ``shown`` writes its values as the game page does (63:00 for 3780 s)."""
    optimum = certificate.get("optimal_makespan")
    finished = [v for v in values if v is not None]
    ratios = [v / optimum for v in finished] if optimum else []
    greedy = certificate.get("greedy_makespan")
    figures = {
        "optimum": optimum,
        "lower_bound": certificate.get("lower_bound"),
        "heuristic": greedy,
        "best": min(finished) if finished else None,
    }
    shown = {k: show(v) for k, v in figures.items() if show is not None and isinstance(v, int | float)}
    return {
        "shown": shown,
        "slug": slug,
        "objective": certificate.get("objective", ""),
        "optimum": optimum,
        "optimal": bool(certificate.get("optimal")),
        "lower_bound": certificate.get("lower_bound"),
        "heuristic": greedy,
        "heuristic_ratio": round(greedy / optimum, 3) if optimum and isinstance(greedy, int | float) else None,
        "episodes": len(values),
        "compared": len(finished),
        "best": min(finished) if finished else None,
        "at_optimum": sum(1 for v in finished if optimum is not None and v <= optimum),
        "mean_ratio": round(mean(ratios), 3) if ratios else None,
    }


def measured(
    domain: str, slug: str, certificate: Mapping[str, Any] | None, metrics: Mapping[str, Any], agents: int
) -> dict[str, Any] | None:
    """One finished episode on a certified instance, in the optimum's terms: the optimum, whether it
    is proven, its lower bound, the episode's value and the ratio value / optimum (value and ratio
    None when it did not finish under the optimum's conditions); None where there is no comparison
    (no certificate, or a domain without one)."""
    achieved = getattr(_generator(domain), "achieved", None)
    if achieved is None or not certificate or not certificate.get("optimal_makespan"):
        return None
    optimum = certificate["optimal_makespan"]
    value = achieved({"scenarios": [slug], "agents": agents}, dict(metrics), certificate.get("basis", {}))
    return {
        "optimum": optimum,
        "optimal": bool(certificate.get("optimal")),
        "lower_bound": certificate.get("lower_bound"),
        "value": value,
        "ratio": None if value is None else round(value / optimum, 4),
    }


def for_game(game: Any) -> dict[str, Any] | None:
    """A finished game on one generated instance against the optimum of the version it played: the
    optimum, its proof, the game's value and their ratio (None where there is nothing to compare)."""
    if not game.is_finished or len(game.scenario_ids or [1]) != 1:
        return None  # before reading the scenario: the live page calls this on every update
    certificate = game.scenario.certificate
    show = getattr(_generator(game.domain), "show", None)
    if not certificate or show is None:
        return None
    found = measured(game.domain, game.scenario.slug, certificate, game.result or {}, game.seats.count())
    if found is None:
        return None
    value, bound = found["value"], found["lower_bound"]
    return {
        "optimum": show(found["optimum"]),
        "optimal": found["optimal"],
        "lower_bound": None if bound is None else show(bound),
        "value": None if value is None else show(value),
        "ratio": None if found["ratio"] is None else round(found["ratio"], 2),
    }
