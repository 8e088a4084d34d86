"""One domain's comparison: benchmark runs (agents, models), people and the reference plan, on the
same scenarios, summarised the same way (``games.npc.reports``).

People's episodes are finished games with a human seat, from the games list or from studies
(pilots' games and tutorials left out), on the scenario combinations the chosen runs played. They
are grouped by who played beside the person: alone, other people, or NPCs of one kind (the study
conditions' NPC kinds). Their metrics are the games' stored results, their curves the games'
progress points; they have no "decisions" axis.

The reference row is the newest finished ``planner`` run (the domain's reference planner policy
played headlessly) whose episodes cover every scenario combination the chosen runs played; with
no run chosen, the newest finished one, and people's games are then those on its scenarios.
``reference_run`` builds one over the chosen runs' episodes when none covers them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from games.models import Game, GameStatus, Scenario, SeatKind
from games.npc import benchmarks, episode_names, reports
from games.npc.models import BenchmarkRun, RunStatus
from games.npc.tasksets import item_for

REFERENCE_AGENT = "planner"
MAX_RUNS = 8
MAX_HUMAN_GAMES = 2000


def signature(item: dict[str, Any]) -> str:
    """An item's scenarios, options and team size: what a person's game must match (any seed)."""
    return str(item["key"]).split("|seed=", 1)[0]


def run_label(run: BenchmarkRun) -> str:
    llm = run.config.get("llm") or {}
    model = f" · {llm.get('model')}" if llm.get("model") else ""
    return f"{run.agent}{model} (run #{run.pk}{', ' + run.label if run.label else ''})"


def default_runs(domain: str) -> list[BenchmarkRun]:
    """The newest finished run of each agent and model (the reference planner apart)."""
    chosen: dict[tuple[str, str], BenchmarkRun] = {}
    query = BenchmarkRun.objects.filter(domain=domain, status=RunStatus.DONE).exclude(agent=REFERENCE_AGENT)
    for run in query.order_by("-created_at")[:200]:
        key = (run.agent, str((run.config.get("llm") or {}).get("model", "")))
        chosen.setdefault(key, run)
    return list(chosen.values())[:MAX_RUNS]


# The planner runs looked through for one that covers the chosen runs (newest first).
REFERENCE_SEARCH = 50


def _covering(domain: str, signatures: set[str] | None, statuses: Sequence[str]) -> BenchmarkRun | None:
    query = BenchmarkRun.objects.filter(domain=domain, agent=REFERENCE_AGENT, status__in=statuses)
    for run in query.order_by("-created_at")[:REFERENCE_SEARCH]:
        if signatures is None or signatures <= {signature(item) for item in run.items}:
            return run
    return None


def reference(domain: str, signatures: set[str] | None = None) -> BenchmarkRun | None:
    """The newest finished planner run that played every one of ``signatures`` (the chosen runs'
    scenario combinations; None: any). The newest planner run of the domain may be of other
    scenarios (a generated family's), and its rows filtered to the chosen ones were none."""
    return _covering(domain, signatures, [RunStatus.DONE])


def reference_under_way(domain: str, signatures: set[str] | None) -> BenchmarkRun | None:
    """A planner run still playing (or queued) that will cover ``signatures``: its page, not a second one."""
    if signatures is None:
        return None
    return _covering(domain, signatures, [RunStatus.QUEUED, RunStatus.RUNNING])


def _companions(game: Game, seats: Sequence[Any]) -> str:
    npcs = sorted({s.dispatcher or "npc" for s in seats if s.kind == SeatKind.NPC})
    people = sum(1 for s in seats if s.kind != SeatKind.NPC)
    if npcs:
        return f"People with {' + '.join(npcs)} NPCs"
    return "People together" if people > 1 else "People alone"


def human_rows(domain: str, signatures: set[str] | None) -> dict[str, list[dict[str, Any]]]:
    """Finished games with a person in them, as episode rows grouped by who played beside them."""
    query = (
        Game.objects.filter(domain=domain, status=GameStatus.FINISHED, seats__kind=SeatKind.HUMAN)
        .filter(result__isnull=False)
        .exclude(study_episode__participant__is_pilot=True)
        .filter(study_tutorials=None)
        .distinct()
        .prefetch_related("seats")
        .order_by("-finished_at")[:MAX_HUMAN_GAMES]
    )
    games = list(query)
    slugs = dict(
        Scenario.objects.filter(pk__in={pk for g in games for pk in (g.scenario_ids or [g.scenario_id])}).values_list(
            "pk", "slug"
        )
    )
    studied = set(
        Game.objects.filter(pk__in=[g.pk for g in games], study_episode__isnull=False).values_list("pk", flat=True)
    )
    groups: dict[str, list[dict[str, Any]]] = {}
    for game in games:
        seats = list(game.seats.all())
        names = [slugs.get(pk, "") for pk in (game.scenario_ids or [game.scenario_id])]
        if not all(names):
            continue
        item = item_for(domain, names, dict(game.options or {}), len(seats), int(game.seed), game.result)
        if signatures is not None and signature(item) not in signatures:
            continue
        item["game"] = game.pk
        curve = [[float(t), None, float(v)] for t, v in (game.progress_points or [])]
        groups.setdefault(_companions(game, seats), []).append(
            {"item": item, "metrics": game.result or {}, "error": "", "curve": curve, "study": game.pk in studied}
        )
    return dict(sorted(groups.items()))


def compare(domain: str, runs: Iterable[BenchmarkRun], *, humans: bool = True) -> dict[str, Any]:
    runs = list(runs)
    signatures = {signature(item) for run in runs for item in run.items} if runs else None
    sources: list[dict[str, Any]] = []
    played: list[list[dict[str, Any]]] = []  # each source's rows, for the by-scenario table
    ref = reference(domain, signatures)
    if signatures is None and ref is not None:
        # no run chosen: people's games on the reference plan's scenarios, not on every scenario
        signatures = {signature(item) for item in ref.items}
    if ref is not None:
        rows = [r for r in benchmarks.result_rows(ref) if signatures is None or signature(r["item"]) in signatures]
        if rows:
            report = reports.source_report(domain, f"Reference plan (planner, run #{ref.pk})", rows)
            sources.append({**report, "kind": "reference", "run": ref})
            played.append(rows)
    for run in runs:
        rows = benchmarks.result_rows(run)
        report = reports.source_report(domain, run_label(run), rows)
        sources.append({**report, "kind": "run", "run": run, "cost": _cost(run)})
        played.append(rows)
    if humans:
        for label, rows in human_rows(domain, signatures).items():
            studies = sum(1 for r in rows if _from_study(r))
            report = reports.source_report(domain, label, rows)
            sources.append({**report, "kind": "human", "from_studies": studies})
            played.append(rows)
    return {
        "sources": sources,
        "by_scenario": by_scenario(sources, played, titles=_titles(played)),
        "charts": reports.curve_charts(sources, domain=domain),
        "instances": len(signatures) if signatures is not None else None,
        "reference": ref,
        "reference_under_way": None if ref is not None or not runs else reference_under_way(domain, signatures),
    }


# Rows of the by-scenario table shown before the rest are folded away.
SHOWN = 20


def by_scenario(
    sources: Sequence[dict[str, Any]],
    played: Sequence[Sequence[dict[str, Any]]],
    titles: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Each scenario (with its options and team size) against each source: the mean final score
    the charts draw (0-100) and over how many episodes, None where a source did not play it. The
    pooled tables average whatever each source played; this says which scenarios those were (a
    person's one brief beside the planner's seven). Rows go by how many sources played the
    scenario, then by name; ``rows`` holds the first ``SHOWN``, ``more`` the rest."""
    names: dict[str, str] = {}
    cells: dict[str, list[list[float]]] = {}
    for index, rows in enumerate(played):
        for row in rows:
            curve = row.get("curve") or []
            if row.get("error") or not curve or curve[-1][-1] is None:
                continue
            key = signature(row["item"])
            names.setdefault(key, _scenario_name(row["item"], titles or {}))
            cells.setdefault(key, [[] for _ in played])[index].append(float(curve[-1][-1]))
    # the scenarios most sources played (what the table compares) first, then by name
    order = sorted(cells.items(), key=lambda kv: (-sum(1 for v in kv[1] if v), _natural(names[kv[0]])))
    lines = [
        {
            "name": names[key],
            "cells": [{"mean": sum(v) / len(v), "episodes": len(v)} if v else None for v in values],
        }
        for key, values in order
    ]
    # a run over hundreds of briefs: the first rows shown, the rest behind "the other N scenarios"
    return {"columns": [source["label"] for source in sources], "rows": lines[:SHOWN], "more": lines[SHOWN:]}


def _natural(name: str) -> list[Any]:
    """A name's sort key with its numbers as numbers ("#2" before "#10")."""
    return [(0, int(part)) if part.isdigit() else (1, part.lower()) for part in re.split(r"(\d+)", name)]


def _titles(played: Sequence[Sequence[dict[str, Any]]]) -> dict[str, str]:
    """Slug -> the scenario's title (its newest version's), for the scenarios the sources played."""
    slugs = {slug for rows in played for row in rows for slug in row["item"].get("scenarios") or []}
    rows = Scenario.objects.filter(slug__in=slugs).order_by("version").values_list("slug", "title")
    return {slug: title for slug, title in rows if title}


def _scenario_name(item: dict[str, Any], titles: dict[str, str]) -> str:
    # in words, as the run page writes them ("without time constraints", not "time_constraints False")
    said = (episode_names.setting(k, str(v)) for k, v in sorted((item.get("options") or {}).items()))
    options = ", ".join(words for words in said if words)
    team = f"{item['agents']} agents" if int(item.get("agents") or 1) > 1 else ""
    extra = " · ".join(part for part in (options, team) if part)
    scenarios = item.get("scenarios") or [str(item.get("key", ""))]
    return " + ".join(titles.get(slug, slug) for slug in scenarios) + (f" ({extra})" if extra else "")


def _from_study(row: dict[str, Any]) -> bool:
    return bool(row.get("study"))


def _cost(run: BenchmarkRun) -> dict[str, Any]:
    results = list(run.results.only("llm_calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd"))
    return {
        "calls": sum(r.llm_calls for r in results),
        "cached": sum(r.cached_calls for r in results),
        "tokens": sum(r.prompt_tokens + r.completion_tokens for r in results),
        "usd": sum(r.cost_usd for r in results),
    }


def reference_run(domain: str, runs: Iterable[BenchmarkRun], created_by: Any = None) -> BenchmarkRun:
    """A planner run over the instances the given runs played (one attempt each)."""
    items: dict[str, dict[str, Any]] = {}
    for run in runs:
        for item in run.items:
            base = {k: v for k, v in item.items() if k not in ("attempt", "instance")}
            base["key"] = str(item.get("instance") or item["key"])
            items.setdefault(base["key"], base)
    if not items:
        raise benchmarks.BenchmarkError("choose at least one run: the reference plan plays its episodes")
    return benchmarks.create_run(
        domain, REFERENCE_AGENT, list(items.values()), label="reference plan", created_by=created_by
    )
