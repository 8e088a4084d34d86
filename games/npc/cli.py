"""``manage.py benchmark DOMAIN --agent ...``: headless benchmark runs of the NPC agents.

The shared ``benchmark`` command adds these options to every domain and sends a command line with
``--agent`` here; without ``--agent`` it runs the domain's own benchmark (its planners).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from games.agents.dispatcher import BENCHMARK_AGENTS
from games.agents.factory import AgentError
from games.management.domain_command import UsageError
from games.npc import benchmarks
from games.npc.models import BenchmarkRun, RunStatus
from games.npc.tasksets import DEFAULT_ALPHAS, TaskSetError, build_items


def _numbers(kind: type, text: str) -> list[Any]:
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, like 1,2,3; got {text!r}") from None


def configure(parser: Any) -> None:
    """Add the NPC-benchmark options (skipping any the domain already defines)."""
    existing = set(parser._option_string_actions)

    def add(*names: str, **kwargs: Any) -> None:
        if not existing.intersection(names):
            parser.add_argument(*names, **kwargs)

    group = parser.add_argument_group("NPC agents (with --agent)")
    existing_group = group

    def add_group(*names: str, **kwargs: Any) -> None:
        if not existing.intersection(names):
            existing_group.add_argument(*names, **kwargs)

    add_group("--agent", choices=BENCHMARK_AGENTS, help="the agent to benchmark (omit for the domain's planners)")
    add_group("--scenarios", nargs="+", default=[], metavar="SLUG", help="slugs or globs, e.g. 'timearena/cooking*'")
    add_group("--source", default="", help="only scenarios from this source (bundled, timearena, ...)")
    add_group("--tasks", type=lambda t: _numbers(int, t), default=[1], help="tasks: #Task combos, e.g. 1,2,3")
    add_group("--constraints", default="with,without", help="recipes: with,without time constraints")
    add_group("--alphas", type=lambda t: _numbers(float, t), default=list(DEFAULT_ALPHAS), help="kitchen: α values")
    add_group("--agents", type=lambda t: _numbers(int, t), default=[2], help="kitchen: team sizes, e.g. 1,2,3,4")
    add_group("--seeds", type=lambda t: _numbers(int, t), default=[0], help="seeds, e.g. 0,1,2")
    add_group(
        "--limit", type=int, default=None, help="at most this many items of the task set (each played --repeats times)"
    )
    add_group("--max-turns", type=int, default=400, help="agent decisions per episode before it is stopped")
    add_group("--endpoint", default="", help="a configured LLM endpoint's id (default: 'default'; see LLM_ENDPOINTS)")
    add_group("--model", default="", help="a model the endpoint allows (default: its first, or LLM_MODEL)")
    add_group("--temperature", type=float, default=None)
    add_group("--timeout", type=float, default=None, help="seconds per LLM call")
    add_group("--max-tokens", type=int, default=None, help="the longest reply, in tokens (default 160)")
    add_group("--no-hints", action="store_true", help="leave the hints out of the prompt")
    add_group("--no-demo", action="store_true", help="leave the one-shot demonstration out")
    add_group("--history", type=int, default=6, help="turns in the sliding history window")
    add_group("--log-calls", action="store_true", help="store every prompt and reply")
    add_group("--label", default="", help="a name for the run")
    add_group("--repeats", type=int, default=1, help="play every item this many times (CIs and pass^k)")
    add_group("--no-cache", action="store_true", help="always ask the model (do not answer from stored replies)")
    add_group("--again", type=int, default=None, metavar="RUN", help="a new run of RUN's task set and settings")
    add_group("--resume", type=int, default=None, metavar="RUN", help="carry on run RUN where it stopped")
    add_group("--csv", type=Path, default=None, help="also write one row per episode to this file")
    del add


def run(domain: str, options: dict[str, Any], log: Any) -> dict[str, Any]:
    if options.get("resume"):
        run = BenchmarkRun.objects.filter(pk=options["resume"]).first()
        if run is None:
            raise UsageError(f"there is no benchmark run {options['resume']}; see the Benchmarks page for ids")
        if run.domain != domain:
            raise UsageError(f"run {run.pk} is a {run.domain} run; use 'benchmark {run.domain} --resume {run.pk}'")
        if run.status != RunStatus.DONE and (problem := benchmarks.endpoint_problem(run)):
            raise UsageError(f"run {run.pk} did not resume: {problem}")
    elif options.get("again"):
        source = BenchmarkRun.objects.filter(pk=options["again"]).first()
        if source is None:
            raise UsageError(f"there is no benchmark run {options['again']}; see the Benchmarks page for ids")
        if source.domain != domain:
            raise UsageError(f"run {source.pk} is a {source.domain} run; use 'benchmark {source.domain} --again'")
        run = benchmarks.rerun(source, cache=False if options.get("no_cache") else None)
    else:
        run = _create(domain, options)
    done, total = benchmarks.progress(run)
    log(f"benchmark run {run.pk}: {run.domain} / {run.agent}, {total} episodes ({done} done already)")
    try:
        run = benchmarks.run_benchmark(run.pk, log)
    except KeyboardInterrupt:  # Ctrl-C: the run says it stopped (not "running" with nobody playing it)
        benchmarks.stop(run)
        log(f"run {run.pk} stopped; carry on with: manage.py benchmark {run.domain} --resume {run.pk}")
        raise
    if options.get("csv"):
        options["csv"].write_text(benchmarks.csv_text(run), encoding="utf-8")
        log(f"wrote {options['csv']}")
    return benchmarks.summary(run)


def _as_list(value: Any, kind: type, default: list[Any]) -> list[Any]:
    """A domain may define an option of the same name its own way (one number, a string, a list)."""
    if value is None or value == "" or value == []:
        return default
    if isinstance(value, str):
        return _numbers(kind, value)
    if isinstance(value, list | tuple):
        return [kind(v) for v in value]
    return [kind(value)]


def _create(domain: str, options: dict[str, Any]) -> BenchmarkRun:
    flags = {part.strip() for part in str(options.get("constraints") or "").split(",") if part.strip()}
    if not flags <= {"with", "without"}:
        raise UsageError("--constraints takes with, without or with,without")
    try:
        items = build_items(
            domain,
            patterns=options.get("scenarios") or [],
            source=options.get("source") or "",
            task_counts=_as_list(options.get("tasks"), int, [1]),
            constraints=[flag == "with" for flag in ("with", "without") if flag in flags],
            alphas=_as_list(options.get("alphas"), float, list(DEFAULT_ALPHAS)),
            agent_counts=_as_list(options.get("agents"), int, [2]),
            seeds=_as_list(options.get("seeds"), int, [0]),
            limit=options.get("limit"),
        )
    except TaskSetError as error:
        raise UsageError(str(error)) from None
    llm = {
        "endpoint": options.get("endpoint"),
        "model": options.get("model"),
        "temperature": options.get("temperature"),
        "timeout_seconds": options.get("timeout"),
        "max_tokens": options.get("max_tokens"),
    }
    if problem := benchmarks.new_run_problem(options["agent"], llm):
        # no run is made while its endpoint does not answer (it would fail at once)
        raise UsageError(f"no run was started: {problem}")
    prompt = {
        "hints": not options.get("no_hints"),
        "demo": not options.get("no_demo"),
        "history_window": options["history"],
    }
    if options.get("max_tokens") is not None:  # the agents ask for the prompt's reply length
        prompt["max_tokens"] = options["max_tokens"]
    try:
        return benchmarks.create_run(
            domain,
            options["agent"],
            items,
            llm=llm,
            prompt=prompt,
            max_turns=options.get("max_turns") or 400,
            log_calls=bool(options.get("log_calls")),
            label=options.get("label") or "",
            cache=not options.get("no_cache"),
            repeats=1 if options.get("repeats") is None else options["repeats"],
        )
    except (AgentError, benchmarks.BenchmarkError) as error:
        raise UsageError(str(error)) from None
