"""Researchers' pages: benchmark runs (start, watch, stop, resume, export) and a game's LLM calls."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.permissions import researcher_required
from arena_site import background
from arena_site.htmx import HtmxHttpRequest
from arena_site.params import whole_number
from games.agents import prices
from games.agents.factory import prompt_parts
from games.engine import registry
from games.engine.durations import short_clock
from games.models import Game, Scenario
from games.npc import benchmarks, call_summary, comparison, episode_names, episode_replay, reports, stats
from games.npc.forms import BenchmarkForm
from games.npc.models import BenchmarkResult, BenchmarkRun, ItemCount, LlmCall, RunStatus
from games.npc.tasksets import TaskSetError, build_items

# A long game makes hundreds of calls, each with its whole prompt: the page shows them 50 at a time.
CALLS_PER_PAGE = 50


@researcher_required
def benchmark_list(request: HttpRequest) -> HttpResponse:
    # a link may fill in the domain, agent and scenarios (the generator's saved family: "Benchmark this family")
    asked = {key: request.GET[key][:500] for key in ("domain", "agent", "scenarios") if key in request.GET}
    form = BenchmarkForm(request.POST or None, initial=asked)
    if request.method == "POST" and form.is_valid() and _endpoint_answers(form):
        data = form.cleaned_data
        try:
            items = build_items(
                data["domain"],
                patterns=(data.get("scenarios") or "").split(),
                task_counts=data["task_counts"],
                constraints=[flag == "with" for flag in data.get("constraints") or []],
                alphas=data["alpha_values"],
                agent_counts=data["team_sizes"],
                limit=data.get("limit"),
            )
            run = benchmarks.create_run(
                data["domain"],
                data["agent"],
                items,
                llm={"endpoint": data.get("endpoint"), "model": data.get("model")},
                prompt={"hints": data.get("hints"), "demo": data.get("demo")},
                max_turns=data["max_turns"],
                log_calls=bool(data.get("log_calls")),
                label=data.get("label") or "",
                created_by=request.user,
                cache=bool(data.get("cache")),
                repeats=data.get("repeats") or 1,
            )
        except (TaskSetError, benchmarks.BenchmarkError, ValueError) as error:
            form.add_error(None, str(error))
        else:
            background.submit("npc.benchmark", run.pk)
            count = f"{run.total} episode{'s' if run.total != 1 else ''}"
            messages.success(request, f"Benchmark run {run.pk} started: {count}.")
            return redirect("games:benchmark", pk=run.pk)
    benchmarks.stop_abandoned_runs()
    # the episodes done counted with the runs, in one query (it was one more query per run)
    listed = BenchmarkRun.objects.select_related("created_by").defer("items")
    runs = listed.annotate(done=Count("results"), size=ItemCount("items"))[:100]
    rows = [(run, run.done, run.size) for run in runs]
    return render(request, "npc/benchmark_list.html", {"form": form, "rows": rows, "domains": registry.domains()})


def _endpoint_answers(form: BenchmarkForm) -> bool:
    """A run of an LLM agent starts only if its endpoint answers (else every episode would spend
    its minutes on calls that fail, and the run would end measuring nothing): False, with the
    form's error saying which endpoint and what to do, when it does not."""
    data = form.cleaned_data
    problem = benchmarks.new_run_problem(data["agent"], {"endpoint": data.get("endpoint"), "model": data.get("model")})
    if problem:
        form.add_error(None, f"No run was started: {problem}.")
    return not problem


def _game_time(unit: str, value: float, end: float | None = None) -> str:
    """A moment of game time as the run's page writes it: ``1:05:00`` (recipes' seconds),
    ``minute 14 of 40``, ``step 18 of 60`` (``end``: the episode's time limit, if it has one)."""
    if unit == "second":
        return short_clock(value) + (f" of {short_clock(end)}" if end is not None else "")
    return f"{unit} {value:g}" + (f" of {end:g}" if end is not None else "")


def _playing(run: BenchmarkRun) -> list[dict[str, object]]:
    """The episodes under way, as far as their last news (``EpisodeProgress``)."""
    unit = registry.get(run.domain).time_unit
    now = timezone.now()
    return [
        {
            "key": row.key,
            "turns": row.turns,
            "llm_calls": row.llm_calls,
            "llm_errors": row.llm_errors,
            "last_error": row.last_error,
            "time": _game_time(unit, row.game_time, row.game_end),
            "score": row.score,
            "quiet": round((now - row.updated_at).total_seconds()),
        }
        for row in run.playing.all()
    ]


def _titles(slugs: set[str]) -> dict[str, str]:
    """The current titles of the scenarios episodes are named by (``episode_names.episode_name``)."""
    return dict(Scenario.objects.filter(slug__in=slugs, is_current=True).values_list("slug", "title"))


def _context(run: BenchmarkRun) -> dict[str, object]:
    done, total = benchmarks.progress(run)
    active = run.status in (RunStatus.QUEUED, RunStatus.RUNNING)
    results = benchmarks.in_plan_order(run, run.results.all())
    for result in results:  # an episode stored before unanswered ones had an error reads as one now
        result.error = benchmarks.error_of(result)
    playing = _playing(run) if active else []
    keys = [r.key for r in results] + [str(p["key"]) for p in playing]
    slugs = {slug for key in keys for slug in episode_names.slugs_of(key)}
    titles = _titles(slugs)
    for episode in playing:
        episode["name"] = episode_names.episode_name(str(episode["key"]), titles)
    report = reports.source_report(run.domain, run.agent, benchmarks.result_rows(run))
    return {
        "report": report,
        "optimum": report["optimum"],
        "ci_reports": [report],
        "charts": reports.curve_charts([report], domain=run.domain),
        "success_meaning": stats.success_meaning(run.domain),
        "run": run,
        "prompt_parts": prompt_parts(run.agent),
        "done": done,
        "total": total,
        "percent": round(100 * done / total) if total else 0,
        "active": active,
        "playing": playing,
        "table": report["table"],
        "results": [(r, episode_names.episode_name(r.key, titles)) for r in results],
        "left_out": benchmarks.left_out(results),
        "llm_calls": sum(r.llm_calls for r in results),
        "tokens": sum(r.prompt_tokens + r.completion_tokens for r in results),
        "llm_seconds": round(sum(r.llm_seconds for r in results), 1),
        "cached_calls": sum(r.cached_calls for r in results),
        "cost_usd": sum(r.cost_usd for r in results),
        "saved_usd": sum(r.saved_usd for r in results),
        "priced": bool(run.config.get("llm")) and prices.priced(str(run.config["llm"].get("model", ""))),
    }


@researcher_required
def benchmark_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    benchmarks.stop_abandoned_runs()  # before reading the run: it may be one of them
    run = get_object_or_404(BenchmarkRun, pk=pk)
    template = "npc/_benchmark_progress.html" if request.htmx else "npc/benchmark_detail.html"
    return render(request, template, _context(run))


_AGENT = re.compile(r"^agent (\d+):")


def _numbered_as_prompted(calls: list[LlmCall], domain: str) -> list[LlmCall]:
    """The calls with their commands and refusals numbering agents as their prompts do (tasks
    from 1): "agent 1: gather dishes" stood under a prompt whose Agent 1 was the person."""
    base = registry.descriptor(domain).display_base
    if not base:
        return calls

    def shown(line: str) -> str:
        return _AGENT.sub(lambda found: f"agent {int(found.group(1)) + base}:", line)

    for call in calls:
        call.parsed = [shown(line) for line in call.parsed or []]
        call.problems = [shown(line) for line in call.problems or []]
    return calls


def _figures(metrics: object) -> list[tuple[str, object]]:
    """An episode's figures as rows, a figure made of several ("counts") in words, "valid 7 · wait
    1" (it printed Python's "{'valid': 7, ...}")."""
    if not isinstance(metrics, dict):
        return []
    return [
        (key, _in_words(value) if isinstance(value, dict | list) else value) for key, value in sorted(metrics.items())
    ]


def _in_words(value: object) -> str:
    if isinstance(value, dict):
        return " · ".join(f"{part} {_in_words(amount)}" for part, amount in value.items()) or "–"
    if isinstance(value, list):  # one per agent: "agent 1: valid 3 · ...; agent 2: ..."
        if value and all(isinstance(item, dict) for item in value):
            return "; ".join(f"agent {i + 1}: {_in_words(item)}" for i, item in enumerate(value))
        return ", ".join(_in_words(item) for item in value) or "–"
    return str(value)


@researcher_required
def benchmark_episode(request: HttpRequest, pk: int, result: int) -> HttpResponse:
    """One finished episode of a run: its outcome and figures, and the model calls it made when the
    run stored them (a failure read from its prompts and replies, not guessed from a score)."""
    episode = get_object_or_404(BenchmarkResult.objects.select_related("run"), pk=result, run_id=pk)
    titles = _titles(set(episode_names.slugs_of(episode.key)))
    context = {
        "run": episode.run,
        "episode": episode,
        "name": episode_names.episode_name(episode.key, titles),
        "figures": _figures(episode.metrics),
        "replay": episode_replay.replayed(episode),
        "calls": _numbered_as_prompted(list(episode.calls.order_by("id")), episode.run.domain),
        "stored": bool(episode.run.config.get("log_calls")),
    }
    return render(request, "npc/benchmark_episode.html", context)


@require_POST
@researcher_required
def benchmark_stop(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(BenchmarkRun, pk=pk)
    benchmarks.stop(run)
    messages.info(
        request,
        f"Run {run.pk} stops after the decision it is making; Resume carries on from there "
        "(an episode stopped half-way is played again from its start).",
    )
    return redirect("games:benchmark", pk=run.pk)


@require_POST
@researcher_required
def benchmark_resume(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(BenchmarkRun, pk=pk)
    if run.status != RunStatus.DONE and (problem := benchmarks.endpoint_problem(run)):
        messages.error(request, f"Run {run.pk} did not resume: {problem}, then press Resume again.")
    elif not benchmarks.mark_resumed(run):
        messages.info(request, "This run is complete; start a new run to play it again.")
    else:
        background.submit("npc.benchmark", run.pk)
        messages.success(request, f"Run {run.pk} resumes; finished episodes are kept.")
    return redirect("games:benchmark", pk=run.pk)


@require_POST
@researcher_required
def benchmark_again(request: HttpRequest, pk: int) -> HttpResponse:
    source = get_object_or_404(BenchmarkRun, pk=pk)
    cache = request.POST.get("cache") != "0"
    if not cache and (problem := benchmarks.endpoint_problem(source)):
        # with stored replies on, a finished run's requests are answered without the model
        messages.error(request, f"No run was started: {problem}.")
        return redirect("games:benchmark", pk=source.pk)
    run = benchmarks.rerun(source, cache=cache, created_by=request.user)
    background.submit("npc.benchmark", run.pk)
    how = "answering from stored replies where it can" if run.config.get("cache", True) else "asking the model afresh"
    messages.success(request, f"Run {run.pk} plays run {source.pk}'s {run.total} episodes again, {how}.")
    return redirect("games:benchmark", pk=run.pk)


@researcher_required
def benchmark_csv(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(BenchmarkRun, pk=pk)
    response = HttpResponse(benchmarks.csv_text(run), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="benchmark-{run.pk}-{run.domain}-{run.agent}.csv"'
    return response


@researcher_required
def benchmark_compare(request: HttpRequest, domain: str) -> HttpResponse:
    if domain not in registry.domains():
        raise Http404("no such domain")
    available = list(BenchmarkRun.objects.filter(domain=domain).exclude(agent="planner").order_by("-created_at")[:100])
    wanted = {pk for pk in map(whole_number, request.GET.getlist("run")) if pk is not None}
    runs = [run for run in available if run.pk in wanted] if wanted else comparison.default_runs(domain)
    humans = request.GET.get("humans", "1") != "0"
    context = comparison.compare(domain, runs, humans=humans)
    context.update(
        {
            "domain": domain,
            "domains": registry.domains(),
            "available": available,
            "chosen": {run.pk for run in runs},
            "humans": humans,
            "ci_reports": context["sources"],
            "certified": [source for source in context["sources"] if source.get("optimum")],
            # the runs that asked a model (a baseline's row of zeros says nothing)
            "costed": [s for s in context["sources"] if s["kind"] == "run" and s["run"].config.get("llm")],
            "success_meaning": stats.success_meaning(domain),
            "has_people": any(source["kind"] == "human" for source in context["sources"]),
        }
    )
    return render(request, "npc/benchmark_compare.html", context)


@require_POST
@researcher_required
def benchmark_reference(request: HttpRequest, domain: str) -> HttpResponse:
    if domain not in registry.domains():
        raise Http404("no such domain")
    wanted = {pk for pk in map(whole_number, request.POST.getlist("run")) if pk is not None}
    runs = BenchmarkRun.objects.filter(domain=domain, pk__in=wanted)
    try:
        run = comparison.reference_run(domain, runs, created_by=request.user)
    except benchmarks.BenchmarkError as error:
        messages.error(request, str(error))
        return redirect("games:benchmark_compare", domain=domain)
    background.submit("npc.benchmark", run.pk)
    messages.success(request, f"Run {run.pk} plays the reference plan on {run.total} episodes.")
    return redirect("games:benchmark", pk=run.pk)


@researcher_required
def game_llm_calls(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk)
    calls = LlmCall.objects.filter(game=game).order_by("id")
    page = Paginator(calls, CALLS_PER_PAGE).get_page(request.GET.get("page"))
    summary = call_summary.summarise(calls)
    context = {
        "game": game,
        "page": page,
        "calls": _numbered_as_prompted(list(page.object_list), game.domain),
        "summary": summary,
        "priced": any(row.cost_usd for row in summary),
    }
    return render(request, "npc/llm_calls.html", context)
