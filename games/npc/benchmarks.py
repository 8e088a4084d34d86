"""Headless benchmark runs: create, run (resumably), stop, and read back as tables and CSV.

A run stores its task set up front; running it plays every item that has no result yet, so a
run stopped by a restart, a crash or the Stop button carries on where it was with ``resume``.
Each episode is played in the ``fast`` clock by ``games.agents.headless``; its LLM calls are
counted, priced (``LLM_PRICES``) and stored with ``config["log_calls"]``. Model answers come from
the response cache when the run allows it (``config["cache"]``, on by default; see
``games.npc.llm_cache``), so re-running a finished run costs no model call and gives its tables
again. ``--repeats k`` plays every item k times (``attempt`` 0..k-1) for confidence intervals and
pass^k (``games.npc.stats``).
"""

from __future__ import annotations

import csv
import io
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteWrapper
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from arena_site import background
from arena_site.spreadsheet import safe_cell
from games import metrics
from games.agents import prices
from games.agents.endpoints import EndpointError
from games.agents.factory import LLM_AGENTS, make_agent
from games.agents.headless import run_episode
from games.agents.llm import LlmClient, LlmConfig, probe, unanswered
from games.agents.llm_dispatcher import PromptOptionError, PromptOptions
from games.engine import registry
from games.models import Scenario
from games.npc import optimality, stats
from games.npc.call_rows import call_row
from games.npc.llm_cache import CachingClient
from games.npc.models import BenchmarkResult, BenchmarkRun, EpisodeProgress, LlmCall, RunStatus
from games.npc.tables import paper_table
from games.services import InvalidInput, scenario_definition

Log = Callable[[str], None]


class BenchmarkError(ValueError):
    pass


def create_run(
    domain: str,
    agent: str,
    items: Sequence[Mapping[str, Any]],
    *,
    llm: Mapping[str, Any] | None = None,
    prompt: Mapping[str, Any] | None = None,
    max_turns: int = 400,
    log_calls: bool = False,
    label: str = "",
    created_by: Any = None,
    cache: bool = True,
    repeats: int = 1,
) -> BenchmarkRun:
    if not items:
        raise BenchmarkError("the task set is empty; widen --scenarios or load scenarios first")
    if not 1 <= int(repeats) <= MAX_REPEATS:
        raise BenchmarkError(f"repeats must be from 1 to {MAX_REPEATS}")
    episodes = len(items) * int(repeats)
    if episodes > MAX_EPISODES:
        raise BenchmarkError(
            f"that is {episodes:,} episodes and a run plays at most {MAX_EPISODES:,}; narrow the scenarios or "
            "the values to try, play fewer repeats, or set a limit"
        )
    try:
        PromptOptions.from_json(prompt)
    except PromptOptionError as error:
        raise BenchmarkError(str(error)) from None
    config: dict[str, Any] = {
        "prompt": dict(prompt or {}),
        "max_turns": max_turns,
        "log_calls": log_calls,
        "cache": bool(cache),
        "repeats": int(repeats),
    }
    if agent in LLM_AGENTS:
        try:
            config["llm"] = LlmConfig.from_settings(llm).public()
        except EndpointError as error:
            raise BenchmarkError(str(error)) from None
        # The key is never stored; a run resumed later reads it from its endpoint's settings again.
    make_agent(domain, agent, llm=_llm_config(config), prompt=config["prompt"])  # fail early on a bad agent
    return BenchmarkRun.objects.create(
        domain=domain,
        agent=agent,
        label=label[:200],
        config=config,
        items=with_repeats(items, int(repeats)),
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )


MAX_REPEATS = 20
# The most episodes one run holds (its task set is stored with the run and read whole to resume it):
# the largest published set, ItineraryBench's 364 briefs, twenty times over is 7,280.
MAX_EPISODES = 10_000
ATTEMPT_SEED_STRIDE = 7919


def with_repeats(items: Sequence[Mapping[str, Any]], repeats: int) -> list[dict[str, Any]]:
    """Each item ``repeats`` times, as attempts 0..k-1 (one attempt keeps the item as it was)."""
    if repeats <= 1:
        return [dict(item) for item in items]
    return [
        {**item, "key": f"{item['key']}|attempt={attempt}", "attempt": attempt, "instance": item["key"]}
        for item in items
        for attempt in range(repeats)
    ]


def rerun(run: BenchmarkRun, *, cache: bool | None = None, created_by: Any = None) -> BenchmarkRun:
    """A new run of the same task set and settings (with the cache on, it replays the stored answers)."""
    config = dict(run.config)
    if cache is not None:
        config["cache"] = bool(cache)
    return BenchmarkRun.objects.create(
        domain=run.domain,
        agent=run.agent,
        label=(f"again: {run.label or f'run {run.pk}'}")[:200],
        config=config,
        items=list(run.items),
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )


def _llm_config(config: Mapping[str, Any]) -> LlmConfig | None:
    """The model settings of a stored run. Its record keeps the URL it was started with, for its
    page; the endpoint's id says where to call now (the endpoint may have moved since, as the
    bundled model does: it listens on a new port each time the server starts)."""
    stored = config.get("llm")
    if not stored:
        return None
    if stored.get("endpoint"):
        stored = {key: value for key, value in stored.items() if key != "base_url"}
    return LlmConfig.from_settings(stored)


def endpoint_problem(run: BenchmarkRun) -> str:
    """Why the run's model cannot be asked now (its endpoint does not answer a one-token request,
    or is no longer configured); "" for a run that asks no model or whose model answers."""
    try:
        config = _llm_config(run.config)
    except EndpointError as error:
        return f"its LLM endpoint is not usable: {error}"
    return _unanswered(config, another=False)


def new_run_problem(agent: str, llm: Mapping[str, Any]) -> str:
    """The same for a run not made yet, of ``agent`` with these model settings (a form's, a
    command line's); the settings themselves are checked by ``create_run``."""
    if agent not in LLM_AGENTS:
        return ""
    try:
        config = LlmConfig.from_settings(llm)
    except EndpointError as error:
        return str(error)
    return _unanswered(config, another=True)


def _unanswered(config: LlmConfig | None, *, another: bool) -> str:
    if config is None:
        return ""
    why = probe(config)
    return unanswered(config, why, another=another) if why else ""


def progress(run: BenchmarkRun) -> tuple[int, int]:
    return run.results.count(), run.total


def definition_for(rules: Any, slugs: Sequence[str]) -> Mapping[str, Any]:
    versions = []
    for slug in slugs:
        try:
            versions.append(Scenario.objects.get(slug=slug, is_current=True))
        except Scenario.DoesNotExist:
            raise BenchmarkError(f"scenario {slug!r} is not loaded") from None
    try:
        return scenario_definition(rules, versions)
    except InvalidInput as error:
        raise BenchmarkError(str(error)) from None


NO_ANSWER = "the model never answered"
CANNOT_START = "cannot start"


def unanswered_error(result: BenchmarkResult) -> str:
    """Why an episode whose every LLM call failed is no result (else ""): its agent only waited,
    so its metrics (AS 0, CR 0 ...) are the rules' verdict on doing nothing, not the model's.
    Also read for episodes stored before such episodes had an ``error``."""
    if not result.llm_calls or result.llm_errors < result.llm_calls:
        return ""
    why = result.outcome.removeprefix(NO_ANSWER).removeprefix(": ") if result.outcome.startswith(NO_ANSWER) else ""
    calls = "its LLM call" if result.llm_calls == 1 else f"all {result.llm_calls} of its LLM calls"
    return f"{NO_ANSWER}: {calls} failed" + (f" ({why.rstrip('.')})" if why else "") + "; left out of the scores"


def error_of(result: BenchmarkResult) -> str:
    """The episode's error: why it is left out of the tables and intervals ("" for a played episode)."""
    return result.error or unanswered_error(result)


def left_out(results: Iterable[BenchmarkResult]) -> str:
    """How many episodes the scores leave out and why, in words ("" when none is): "2 episodes left
    out of the scores: 1 could not start, 1 where the model never answered (every LLM call failed)"."""
    reasons: dict[str, int] = {}
    for result in results:
        error = error_of(result)
        if not error:
            continue
        if error.startswith(CANNOT_START):
            why = "could not start"
        elif error.startswith(NO_ANSWER):
            why = "where the model never answered (every LLM call failed)"
        else:
            why = "failed"
        reasons[why] = reasons.get(why, 0) + 1
    if not reasons:
        return ""
    count = sum(reasons.values())
    listed = ", ".join(f"{n} {why}" for why, n in reasons.items())
    return f"{count} episode{'' if count == 1 else 's'} left out of the scores: {listed}"


SERVER, WORKER, COMMAND = "server", "worker", "command"  # BenchmarkRun.taken_by
# A run fails once this many LLM calls failed in a row in an episode, or in the run before any was
# answered (``_Progress``).
UNANSWERED_CALLS = 8
HALTED = (RunStatus.STOPPED, RunStatus.FAILED)  # a run in either plays no further decision
PROGRESS_EVERY = 2.0  # seconds between two writes of an episode's progress (the page polls every 2 s)


class _Progress:
    """Called after each decision of an episode: writes how far it has got (at most every
    ``PROGRESS_EVERY`` seconds) and answers False once the run is stopped, so that Stop takes
    effect within a decision instead of after an episode a slow model may take many minutes for;
    False too once the run was taken up again (Resume pressed while this episode was finishing
    the decision Stop found it in): the new take plays the episode, this one stops; and False
    once it has failed the run because the model does not answer (``UNANSWERED_CALLS``)."""

    def __init__(self, run: BenchmarkRun, key: str, rules: Any) -> None:
        self._run_id, self._key, self._rules, self._claim = run.pk, key, rules, run.claims
        self._llm = run.config.get("llm") or {}
        self._horizon = registry.descriptor(rules.domain).part("horizon")
        self._last = time.monotonic()
        EpisodeProgress.objects.update_or_create(run_id=run.pk, key=key, defaults={"turns": 0, "llm_calls": 0})

    def __call__(self, episode: Any) -> bool:
        calls = episode.calls
        if calls and not calls[-1].reply.ok and self._fail_if_the_model_does_not_answer(calls):
            return False
        now = time.monotonic()
        if now - self._last < PROGRESS_EVERY:
            return True
        self._last = now
        now_run = BenchmarkRun.objects.filter(pk=self._run_id).values_list("status", "claims").first()
        if now_run is None or now_run[0] in HALTED or now_run[1] != self._claim:
            return False
        failed = [call.reply.error for call in episode.calls if call.reply.error]
        EpisodeProgress.objects.filter(run_id=self._run_id, key=self._key).update(
            turns=episode.turns,
            llm_calls=len(episode.calls),
            llm_errors=len(failed),
            last_error=failed[-1].rstrip(".")[:300] if failed else "",
            game_time=float(self._rules.now(episode.state)),
            game_end=None if self._horizon is None else self._horizon(episode.state),
            score=episode.curve[-1][2] if episode.curve else None,
            updated_at=timezone.now(),
        )
        return True

    def _fail_if_the_model_does_not_answer(self, calls: Sequence[Any]) -> bool:
        """The run fails at once (True) when the model is not answering: the episode's last
        ``UNANSWERED_CALLS`` calls failed (the server went away mid-run), or that many calls of the
        run failed and none was answered, in a finished episode or one under way (an endpoint that
        is down, a wrong model name or key). Otherwise the run would spend hours measuring nothing:
        an NPC whose call fails does nothing that step."""
        recent = calls[-UNANSWERED_CALLS:]
        if len(recent) == UNANSWERED_CALLS and not any(call.reply.ok for call in recent):
            failed = len(recent)
            what = f"The model stopped answering: the last {failed} LLM calls of an episode failed"
        else:
            answered = Q(llm_calls__gt=F("llm_errors"))
            if any(call.reply.ok for call in calls) or (
                BenchmarkResult.objects.filter(answered, run_id=self._run_id).exists()
                or EpisodeProgress.objects.filter(answered, run_id=self._run_id).exists()
            ):
                return False
            finished = BenchmarkResult.objects.filter(run_id=self._run_id).aggregate(
                failed=Sum("llm_errors"), episodes=Count("id")
            )
            kept, episodes = finished["failed"] or 0, finished["episodes"]
            failed = kept + len(calls)
            if failed < UNANSWERED_CALLS:
                return False
            # the run page counts the calls of finished episodes only: say where the rest were
            finished_part = (
                f"{kept} in the {episodes} finished episode{'' if episodes == 1 else 's'}, " if episodes else ""
            )
            where = f"{finished_part}{len(calls)} in the episode it stopped in, which is not kept"
            what = f"The model never answered: the first {failed} LLM calls of this run all failed ({where})"
        llm = self._llm
        why = (
            f"{what}, so the run stopped instead of measuring nothing. Endpoint {llm.get('endpoint', 'default')} "
            f"(model {llm.get('model', '?')}): {calls[-1].reply.error.rstrip('.')}. Start that model server (or fix "
            "the model's name or key), then Resume: finished episodes are kept, the others play again."
        )
        running = BenchmarkRun.objects.filter(pk=self._run_id, status=RunStatus.RUNNING, claims=self._claim)
        return bool(running.update(status=RunStatus.FAILED, error=why, finished_at=timezone.now()))

    def forget(self) -> None:
        _forget_progress(self._run_id, self._key)


def _forget_progress(run_id: int, key: str) -> None:
    """The episode is a result now, or will be played again: it is no longer under way."""
    EpisodeProgress.objects.filter(run_id=run_id, key=key).delete()


def run_item(run: BenchmarkRun, item: Mapping[str, Any]) -> BenchmarkResult | None:
    """Play one item and save its result; None when the run was stopped during the episode (the
    unfinished episode is not a result: Resume plays it again from its start)."""
    rules = registry.get(run.domain)
    started = time.perf_counter()
    agents = int(item.get("agents", 1))
    llm = _llm_config(run.config)
    client = None
    if llm is not None:
        client = CachingClient(
            LlmClient(config=llm, max_retries=int(getattr(settings, "BENCHMARK_LLM_RETRIES", 4))),
            seed=int(item.get("seed", 0)),
            attempt=int(item.get("attempt", 0)),
            enabled=bool(run.config.get("cache", True)),
        )
    brain = make_agent(
        run.domain,
        run.agent,
        llm=llm,
        prompt=run.config.get("prompt"),
        npc_agents=list(range(agents)),
        # A seeded agent (random) plays each attempt differently; attempt 0 keeps the item's seed.
        seed=int(item.get("seed", 0)) + ATTEMPT_SEED_STRIDE * int(item.get("attempt", 0)),
        client=client,
    )
    result = BenchmarkResult(run=run, key=item["key"], item=dict(item))
    try:
        definition = definition_for(rules, item["scenarios"])
        # A combination the rules cannot start is this item's error, not the run's end.
        rules.initial_state(definition, seed=int(item.get("seed", 0)), agents=agents, options=item.get("options") or {})
    except (BenchmarkError, ValueError, KeyError, TypeError) as error:
        result.error = f"{CANNOT_START}: {error}"
        definition = None
    episode = None
    if definition is not None:
        progress = _Progress(run, item["key"], rules)
        episode = run_episode(
            rules,
            definition,
            brain,
            agents=agents,
            seed=int(item.get("seed", 0)),
            options=item.get("options") or {},
            max_turns=int(run.config.get("max_turns", 400)),
            score=lambda state: metrics.headline(run.domain, rules.result(state)),
            on_turn=progress,
        )
        if episode.halted:
            progress.forget()
            return None
    if episode is not None:
        outcome = rules.outcome(episode.state)
        result.metrics = rules.result(episode.state)
        # the loop's own reason first: a model that stopped answering let the time limit end it
        result.outcome = episode.stopped or outcome.reason
        result.turns = episode.turns
        result.actions = len(episode.actions)
        result.log = [[a.agent, a.action, float(a.time)] for a in episode.actions]
        result.llm_calls = len(episode.calls)
        result.llm_errors = sum(1 for call in episode.calls if call.reply.error)
        result.llm_seconds = round(sum(call.reply.latency_seconds for call in episode.calls), 3)
        result.prompt_tokens = sum(call.reply.prompt_tokens for call in episode.calls)
        result.completion_tokens = sum(call.reply.completion_tokens for call in episode.calls)
        result.cached_calls = sum(1 for call in episode.calls if call.reply.cached)
        result.cost_usd = round(sum(_cost(call.reply) for call in episode.calls if not call.reply.cached), 6)
        result.saved_usd = round(sum(_cost(call.reply) for call in episode.calls if call.reply.cached), 6)
        result.curve = episode.curve
        if episode.calls and result.llm_errors == result.llm_calls:
            # its score says nothing about the model: the outcome says why, and its error leaves
            # it out of the scores as an episode that could not start is
            result.outcome = f"{NO_ANSWER}: {episode.calls[0].reply.error}"[:200]
            result.error = unanswered_error(result)
    result.wall_seconds = round(time.perf_counter() - started, 3)
    try:
        with transaction.atomic():
            _save(run, result, episode)
    except IntegrityError:
        # Another worker played the same item meanwhile (a redelivered task): keep the first.
        _forget_progress(run.pk, result.key)
        return BenchmarkResult.objects.get(run=run, key=result.key)
    return result


def _save(run: BenchmarkRun, result: BenchmarkResult, episode: Any) -> None:
    result.save()
    _forget_progress(run.pk, result.key)  # with the result, in its transaction
    if episode is not None and run.config.get("log_calls"):
        llm = run.config.get("llm") or {}
        LlmCall.objects.bulk_create(
            call_row(
                call,
                model=llm.get("model", ""),
                result=result,
                base_url=llm.get("base_url", ""),
                cached=call.reply.cached,
                cost_usd=_cost(call.reply),
            )
            for call in episode.calls
        )


def _cost(reply: Any) -> float:
    return prices.cost_usd(reply.model, reply.prompt_tokens, reply.completion_tokens)


def run_benchmark(
    run_id: int,
    log: Log | None = None,
    *,
    workers: int | None = None,
    fan_out: bool = False,
    taken_by: str = COMMAND,
) -> BenchmarkRun:
    """Play every item of the run that has no result yet. Safe to call again (resume).

    Episodes play ``workers`` at a time (``BENCHMARK_WORKERS``) in threads of this process, or,
    with ``fan_out`` (a Celery worker with a broker), as one ``npc.benchmark_item`` task each so
    they spread over every worker; the last to finish marks the run done. Either way the model
    calls of all of them share each endpoint's concurrency limit (``games.npc.limits``).
    """
    log = log or (lambda line: None)
    claimed = BenchmarkRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE)
    took = claimed.update(
        status=RunStatus.RUNNING,
        heartbeat_at=timezone.now(),
        error="",
        claims=F("claims") + 1,
        taken_by=taken_by,
        process=this_process(),
    )
    if not took:
        return BenchmarkRun.objects.get(pk=run_id)
    run = BenchmarkRun.objects.get(pk=run_id)
    if run.started_at is None:
        run.started_at = timezone.now()
        run.save(update_fields=["started_at"])
    run.playing.all().delete()  # left by a process that died mid-episode: those episodes start over
    done = set(run.results.values_list("key", flat=True))
    pending = [(index, item) for index, item in enumerate(run.items, start=1) if item["key"] not in done]
    if fan_out and pending:
        for _index, item in pending:
            background.to_workers("npc.benchmark_item", run_id, item["key"])
        return run
    try:
        count = _workers(workers)
        if count == 1:
            for index, item in pending:
                if not _play(run, index, item, log):
                    break
        else:
            _play_in_threads(run, pending, count, log)
    except Exception as error:
        BenchmarkRun.objects.filter(pk=run_id).update(
            status=RunStatus.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
        raise
    halted = BenchmarkRun.objects.filter(pk=run_id, status__in=HALTED).values_list("status", "error").first()
    if halted is not None:
        log(f"run {run_id} {halted[0]} at {run.results.count()}/{run.total}" + (f": {halted[1]}" if halted[1] else ""))
    _finish_if_complete(run_id)
    return BenchmarkRun.objects.get(pk=run_id)


def _play_in_threads(run: BenchmarkRun, pending: list[tuple[int, Any]], count: int, log: Log) -> None:
    """Play ``pending`` in ``count`` daemon threads, each taking the next item as it finishes one;
    the first unexpected error stops them taking more and is raised here. Daemon threads (not a
    ``ThreadPoolExecutor``'s, which the interpreter waits for at exit) let a server that is told to
    stop, stop: the episodes cut off are played again when it starts (``cut_off_runs``)."""
    queue = deque(pending)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work() -> None:
        while True:
            with lock:
                if not queue or failures:
                    return
                index, item = queue.popleft()
            try:
                _play_in_thread(run, index, item, log)
            except BaseException as error:  # handed to the caller, which raises it
                with lock:
                    failures.append(error)
                return

    size = min(count, len(queue))
    threads = [threading.Thread(target=work, name=f"benchmark-{run.pk}-{n}", daemon=True) for n in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def cut_off_runs() -> list[int]:
    """The runs a stopped server cut off, to queue again when it starts: those its threads were
    playing (``taken_by`` server) and those still queued (finished episodes are kept, an episode
    cut off half-way starts over). A run a ``manage.py benchmark`` command plays is its terminal's."""
    return list(
        BenchmarkRun.objects.filter(
            Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, taken_by=SERVER)
        ).values_list("pk", flat=True)
    )


def this_process() -> str:
    """``host:pid`` of this process, as ``BenchmarkRun.process`` records it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _gone(process: str) -> bool:
    """Whether ``process`` (``host:pid``) ran on this host and has ended. A process on another
    host, or a record that does not parse, is not known to be gone."""
    host, _, pid = process.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, under another user
        pass
    return False


def stop_abandoned_runs() -> list[int]:
    """Mark stopped the runs a ``manage.py benchmark`` command was playing when it was killed
    (SIGKILL, a closed terminal, a machine that went down: Ctrl-C already marks its run stopped),
    so their pages offer Resume instead of reading "running" with nobody playing them. Only a
    command's runs: the server's are queued again when it starts, a worker's redelivered by Celery.
    Returns their ids."""
    abandoned = [
        run.pk
        for run in BenchmarkRun.objects.filter(status=RunStatus.RUNNING, taken_by=COMMAND).only("pk", "process")
        if _gone(run.process)
    ]
    for pk in abandoned:
        stopped = BenchmarkRun.objects.filter(pk=pk, status=RunStatus.RUNNING, taken_by=COMMAND).update(
            status=RunStatus.STOPPED,
            error="The manage.py benchmark command playing this run ended without finishing it "
            "(killed, or its terminal closed). Resume plays the rest here; finished episodes are kept.",
        )
        if stopped:
            EpisodeProgress.objects.filter(run_id=pk).delete()
    return abandoned


def _workers(requested: int | None) -> int:
    count = max(1, requested or settings.BENCHMARK_WORKERS)
    default = connections[DEFAULT_DB_ALIAS]
    if connection.in_atomic_block or (isinstance(default, SQLiteWrapper) and default.is_in_memory_db()):
        # Other threads could not see the caller's uncommitted run (a test's transaction), or
        # could not write to an in-memory test database: play in the caller.
        return 1
    return count


def _play(run: BenchmarkRun, index: int, item: Mapping[str, Any], log: Log) -> bool:
    """One episode unless the run was stopped meanwhile (then False)."""
    if BenchmarkRun.objects.filter(pk=run.pk, status__in=HALTED).exists():
        return False
    result = run_item(run, item)
    if result is None:
        log(f"[{index}/{run.total}] {item['key']}: stopped during the episode; Resume plays it again")
        return False
    summary = result.error or (
        f"{result.outcome} · {result.llm_calls} LLM calls ({result.cached_calls} cached)"
        f" · ${result.cost_usd:.4f} · {result.wall_seconds:.1f} s"
    )
    log(f"[{index}/{run.total}] {item['key']}: {summary}")
    BenchmarkRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    return True


def _play_in_thread(run: BenchmarkRun, index: int, item: Mapping[str, Any], log: Log) -> bool:
    try:
        return _play(run, index, item, log)
    finally:
        connections.close_all()  # this thread's own connection


def play_one(run_id: int, key: str) -> None:
    """One item of a fanned-out run (a Celery task): skipped if played or the run stopped."""
    run = BenchmarkRun.objects.filter(pk=run_id).first()
    if run is None or run.status != RunStatus.RUNNING or run.results.filter(key=key).exists():
        return
    found = [(index, item) for index, item in enumerate(run.items, start=1) if item["key"] == key]
    if found:
        try:
            _play(run, *found[0], lambda line: None)
        except Exception as error:
            BenchmarkRun.objects.filter(pk=run_id).update(
                status=RunStatus.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
            )
            raise
    _finish_if_complete(run_id)


def _finish_if_complete(run_id: int) -> None:
    """Done once every item has a result (and nobody stopped or failed the run meanwhile)."""
    run = BenchmarkRun.objects.get(pk=run_id)
    if run.results.count() >= run.total:
        cause = all_calls_failed(run)
        BenchmarkRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
            status=RunStatus.FAILED if cause else RunStatus.DONE, error=cause, finished_at=timezone.now()
        )


def all_calls_failed(run: BenchmarkRun) -> str:
    """Why the run measured nothing, when it made LLM calls and every one failed (else ""): its
    scores would otherwise read as a model scoring 0."""
    totals = run.results.aggregate(calls=Sum("llm_calls"), errors=Sum("llm_errors"))
    calls, errors = totals["calls"] or 0, totals["errors"] or 0
    if not calls or errors < calls:
        return ""
    first = run.results.filter(outcome__startswith=NO_ANSWER).order_by("id").first()
    reason = first.outcome.removeprefix(NO_ANSWER + ": ") if first else "no answer"
    llm = run.config.get("llm") or {}
    where = f" from endpoint {llm.get('endpoint', 'default')} (model {llm.get('model', '?')})"
    return f"All {calls} LLM calls failed, so the scores measure nothing. First error{where}: {reason}"


def mark_resumed(run: BenchmarkRun) -> bool:
    """Queue a stopped or failed run again (finished episodes are kept); False if it is complete.
    The caller then submits the ``npc.benchmark`` task for it."""
    if run.status == RunStatus.DONE:
        return False
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.QUEUED)
    run.status = RunStatus.QUEUED
    return True


def stop(run: BenchmarkRun) -> None:
    BenchmarkRun.objects.filter(pk=run.pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
        status=RunStatus.STOPPED
    )


def in_plan_order(run: BenchmarkRun, results: Iterable[BenchmarkResult]) -> list[BenchmarkResult]:
    """Results in the order of the run's episodes (instance, then attempt), not the order they
    finished in: episodes played side by side finish out of turn ("attempt 2" listed above 1)."""
    order = {item["key"]: index for index, item in enumerate(run.items)}
    return sorted(results, key=lambda r: (order.get(r.key, len(order)), r.pk))


def result_rows(run: BenchmarkRun) -> list[dict[str, Any]]:
    fields = ("item", "metrics", "error", "curve", "outcome", "llm_calls", "llm_errors")
    return [
        {"item": r.item, "metrics": r.metrics, "error": error_of(r), "curve": r.curve}
        for r in run.results.only(*fields).order_by("id")
    ]


def table(run: BenchmarkRun) -> dict[str, Any]:
    return paper_table(run.domain, result_rows(run))


def summary(run: BenchmarkRun) -> dict[str, Any]:
    """The run for ``manage.py benchmark --json``: the paper table, CIs, pass^k, calls and cost, and
    on generated instances the distance to their certified optimum (``optimum``, else null)."""
    finished, total = progress(run)
    rows = result_rows(run)
    results = list(
        run.results.only("llm_calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost_usd", "saved_usd")
    )
    return {
        "run": run.pk,
        "domain": run.domain,
        "agent": run.agent,
        "status": run.status,
        "done": finished,
        "total": total,
        "table": table(run),
        "metrics": stats.summary(run.domain, rows),
        "pass_k": stats.pass_hat_k(run.domain, rows),
        "optimum": optimality.against_optimum(run.domain, rows),
        "llm": run.config.get("llm"),
        "llm_calls": sum(r.llm_calls for r in results),
        "cached_calls": sum(r.cached_calls for r in results),
        "tokens": sum(r.prompt_tokens + r.completion_tokens for r in results),
        "cost_usd": round(sum(r.cost_usd for r in results), 6),
        "saved_usd": round(sum(r.saved_usd for r in results), 6),
    }


CSV_FIELDS = [
    "run",
    "domain",
    "agent",
    "key",
    "scenarios",
    "options",
    "agents",
    "seed",
    "outcome",
    "turns",
    "actions",
    "llm_calls",
    "llm_errors",
    "llm_seconds",
    "prompt_tokens",
    "completion_tokens",
    "cached_calls",
    "cost_usd",
    "saved_usd",
    "attempt",
    "wall_seconds",
    "error",
]


def csv_text(run: BenchmarkRun) -> str:
    """One row per episode: the item, the agent's cost, and every scalar metric as a column."""
    results = in_plan_order(run, run.results.all())
    metric_names: list[str] = []
    for result in results:
        for name, value in result.metrics.items():
            if _scalar(value) and name not in metric_names:
                metric_names.append(name)
    # Episodes on generated instances: their certified optimum and how far from it they ended.
    certified = optimality.compared(
        run.domain, [{"item": r.item, "metrics": r.metrics, "error": error_of(r)} for r in results]
    )
    optimum_fields = optimality.COLUMNS if any(certified) else []
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS + optimum_fields + metric_names)
    for r, found in zip(results, certified, strict=True):
        item = r.item
        optimum = [] if not optimum_fields else optimality.columns(None if found is None else found[2])
        cells = (
            [
                run.pk,
                run.domain,
                run.agent,
                r.key,
                " + ".join(item.get("scenarios", [])),
                ";".join(f"{k}={v}" for k, v in sorted((item.get("options") or {}).items())),
                item.get("agents", 1),
                item.get("seed", 0),
                r.outcome,
                r.turns,
                r.actions,
                r.llm_calls,
                r.llm_errors,
                r.llm_seconds,
                r.prompt_tokens,
                r.completion_tokens,
                r.cached_calls,
                r.cost_usd,
                r.saved_usd,
                item.get("attempt", 0),
                r.wall_seconds,
                error_of(r),
            ]
            + optimum
            + [r.metrics.get(name, "") for name in metric_names]
        )
        writer.writerow([safe_cell(cell) if isinstance(cell, str) else cell for cell in cells])
    return out.getvalue()


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
