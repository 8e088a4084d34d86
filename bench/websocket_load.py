"""Websocket load: N concurrent games, one program client each, on loopback against a real server.

Each client plays its own lockstep game at a human pace: an action every ``THINK`` seconds (with
jitter so the clients do not march in step), chosen from the legal actions the server sends, and
measures the time from sending ``act`` to receiving the first ``event`` it caused. The games are a
mix of the domains in ``BENCH_DOMAINS`` (default all four, in turn: tasks with three bundled tasks at
once so it lasts, and the first bundled scenario of recipes, kitchen and itinerary). Printed per N:
p50/p99 latency overall and per domain, throughput, server CPU per action and failures; with the
embedded default (SQLite, in-memory channel layer) and with Postgres + Redis (channels-redis), when
those answer. After the mixed run, each domain plays alone on the same server for
``BENCH_DOMAIN_SECONDS`` (default 8) with ``BENCH_DOMAIN_N`` games (default 50), which is where the
server CPU per action of each domain comes from (one server's CPU cannot be split between domains).

The server runs as in production (DEBUG off): one Daphne process on the embedded default (as
``make run``), uvicorn worker processes with Postgres + Redis (as ``make serve``). Its log is kept in
``var/bench/websocket_load-<setup>-<N>.log`` for looking into failures.

Bounded and self-stopping: every run lasts ``SECONDS`` of measurement at most, then every client
and the server stop. Loopback only. Env: BENCH_NS="50,200,500", BENCH_SECONDS, BENCH_DATABASE_URL,
BENCH_REDIS_URL, BENCH_SETUPS="embedded,redis", BENCH_WORKERS (server processes with Redis; default:
one per core), BENCH_DOMAINS, BENCH_DOMAIN_N (0 skips the per-domain runs), BENCH_DOMAIN_SECONDS.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import json
import os
import random
import re
import secrets
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

NS = [int(n) for n in os.environ.get("BENCH_NS", "50,200,500").split(",") if n.strip()]
SECONDS = float(os.environ.get("BENCH_SECONDS", "20"))
THINK = 2.0  # seconds between one client's actions (a brisk human)
CONNECTING = 20  # handshakes in flight at once while the clients arrive
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_play")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")
LOGS = Path(__file__).resolve().parents[1] / "var" / "bench"
# With Postgres + Redis the server runs as `make serve` (a worker process per core); the embedded
# default is one Daphne process, as `make run`.
WORKERS = int(os.environ.get("BENCH_WORKERS") or os.cpu_count() or 2)
DOMAINS = [
    d.strip() for d in os.environ.get("BENCH_DOMAINS", "tasks,recipes,kitchen,itinerary").split(",") if d.strip()
]
DOMAIN_N = int(os.environ.get("BENCH_DOMAIN_N", "50"))
DOMAIN_SECONDS = float(os.environ.get("BENCH_DOMAIN_SECONDS", "8"))
TASKS = ["bundled/make-tea", "bundled/wash-clothes", "bundled/clean-kitchen"]

# Creates ``n`` mixed games, then ``each`` games per domain for the per-domain runs; prints
# {"token", "games": [[id, domain], ...], "alone": {domain: [id, ...]}}.
SETUP = """
import json
from accounts.tokens import create_token
from django.contrib.auth import get_user_model
from games import services
from games.bundled import load_bundled
from games.models import Scenario
load_bundled(log=lambda line: None)
domains = {domains!r}
scenario = {{"tasks": {tasks!r}}}
for domain in domains:
    if domain != "tasks":
        scenario[domain] = Scenario.objects.filter(domain=domain, is_current=True).order_by("slug").first().slug
bot = get_user_model().objects.create_user("loadbot")
seats = [{{"kind": "program", "user": bot}}]
def game(domain):
    return services.create_game(scenario[domain], seats, clock="lockstep").pk
mixed = [[game(domains[i % len(domains)]), domains[i % len(domains)]] for i in range({n})]
alone = {{domain: [game(domain) for _ in range({each})] for domain in domains}}
print(json.dumps({{"token": create_token(bot), "games": mixed, "alone": alone}}))
"""


def pick(actions: list[str], rng: random.Random) -> str:
    useful = [a for a in actions if a != "wait"]
    return rng.choice(useful) if useful else "wait"


async def client(
    url: str,
    token: str,
    gates: tuple[asyncio.Semaphore, asyncio.Event, list[int]],
    stop_at: list[float],
    latencies: list[float],
    failures: list[str],
    seed: int,
) -> None:
    """Play one game until ``stop_at``; a latency per action is appended to ``latencies``."""
    import websockets

    rng = random.Random(seed)
    handshakes, go, arrived = gates
    doing = "connecting"
    try:
        try:
            async with handshakes:  # clients arrive over a moment, not in one instant
                headers = {"Authorization": f"Token {token}"}
                ws = await websockets.connect(url, additional_headers=headers, open_timeout=120)
                state = await _next_state(ws)
        finally:
            arrived[0] += 1
        async with ws:
            await go.wait()  # measure once everyone is connected
            await asyncio.sleep(rng.uniform(0, THINK))
            while time.monotonic() < stop_at[0] and state["status"] != "finished":
                if not state["legal_actions"]:  # nothing to do now: let time pass, as a person presses W
                    doing = f"waiting for a new state after passing at seq {state['seq']}"
                    await asyncio.sleep(THINK)
                    if time.monotonic() < stop_at[0]:
                        await ws.send(json.dumps({"type": "wait"}))
                        state = await _next_state(ws)
                    continue
                doing = f"waiting for the event after an act at seq {state['seq']}"
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "action": pick(state["legal_actions"], rng)}))
                while True:  # the first event after our act
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message["type"] == "event" and message["seq"] > state["seq"]:
                        latencies.append(time.perf_counter() - sent)
                        break
                    if message["type"] == "error":
                        failures.append(message["message"])
                        break
                doing = "waiting for the state after an event"
                state = message if message["type"] == "state" else await _next_state(ws)
                await asyncio.sleep(THINK * rng.uniform(0.75, 1.25))
    except Exception as error:  # a refused or dropped connection is a figure, not a crash
        failures.append(f"{type(error).__name__} {doing} (game {seed}): {error}")


async def _next_state(ws) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == "state":
            return message


def process_tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by process ``root`` and its descendants (Linux)."""
    from games.tests.server import descendants, process_table

    table = process_table()
    return sum(table[pid][1] for pid in {root} | descendants(root, table) if pid in table)


async def drive(
    port: int, token: str, games: list[int], cpu: Callable[[], float], seconds: float
) -> tuple[dict[int, list[float]], list[str], float, float, float, float]:
    """Play ``games`` for ``seconds``; latencies by game id, failures, seconds taken, seconds to
    connect everyone, and the server's and the clients' CPU seconds over the measurement."""
    latencies: dict[int, list[float]] = {g: [] for g in games}
    failures: list[str] = []
    gates = (asyncio.Semaphore(CONNECTING), asyncio.Event(), [0])
    stop_at = [0.0]
    tasks = [
        asyncio.ensure_future(
            client(f"ws://127.0.0.1:{port}/ws/games/{g}/", token, gates, stop_at, latencies[g], failures, seed=g)
        )
        for g in games
    ]
    connecting = time.monotonic()
    while gates[2][0] < len(games) and time.monotonic() - connecting < 180:
        await asyncio.sleep(0.05)
    connect_seconds = time.monotonic() - connecting
    started, cpu_before, client_before = time.monotonic(), cpu(), time.process_time()
    stop_at[0] = started + seconds
    gates[1].set()
    await asyncio.wait_for(asyncio.gather(*tasks), seconds + 90)
    took, server_cpu = time.monotonic() - started, cpu() - cpu_before
    return latencies, failures, took, connect_seconds, server_cpu, time.process_time() - client_before


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def reachable(database_url: str, redis_url: str) -> str | None:
    try:
        from urllib.parse import urlparse, urlunparse

        import psycopg
        import redis

        # the run gets a fresh database next to this one; the server's admin database must answer
        admin = urlunparse(urlparse(database_url)._replace(path="/postgres"))
        psycopg.connect(admin, connect_timeout=3).close()
        redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
    except Exception as error:
        return str(error).splitlines()[0]
    return None


def _report_run(
    report: Callable[..., None],
    label: str,
    run_: tuple[dict[int, list[float]], list[str], float, float, float, float],
    domain_of: dict[int, str],
    kept: Path,
) -> None:
    by_game, failures, took, connect, cpu, client_cpu = run_
    latencies = [x for found in by_game.values() for x in found]
    if latencies:
        report(f"{label} p50", 1000 * statistics.median(latencies), "ms")
        report(f"{label} p99", 1000 * percentile(latencies, 0.99), "ms")
        report(f"{label} server CPU per action", 1000 * cpu / len(latencies), "ms (all its processes, domain mix)")
        report(
            f"{label} clients' CPU per action",
            1000 * client_cpu / len(latencies),
            "ms (the load generator, same machine)",
        )
        for domain in DOMAINS:
            mine = [x for game, found in by_game.items() if domain_of[game] == domain for x in found]
            if mine:
                report(
                    f"{label}   {domain} p50 / p99",
                    1000 * statistics.median(mine),
                    f"ms / {1000 * percentile(mine, 0.99):.1f} ms ({len(mine)} actions)",
                )
    report(f"{label} actions", len(latencies), f"in {took:.0f} s ({len(latencies) / took:.0f}/s)")
    report(f"{label} failures", len(failures), f"(server log: {kept})" if failures else "")
    kinds = collections.Counter(re.sub(r"\d+", "N", failure) for failure in failures)
    for kind, count in kinds.most_common(5):
        example = next(f for f in failures if re.sub(r"\d+", "N", f) == kind)
        print(f"    {count} x {kind[:150]} (e.g. {example[:150]})")
    report(f"{label} connecting all", connect, "s")


def run(report: Callable[..., None]) -> None:
    from games.tests.server import Stack

    wanted = os.environ.get("BENCH_SETUPS", "embedded,redis").split(",")
    setups: list[tuple[str, dict[str, str]]] = [("embedded", {})] if "embedded" in wanted else []
    problem = reachable(DATABASE_URL, REDIS_URL)
    if "redis" in wanted and problem is None:
        setups.append(("redis", {"DATABASE_URL": DATABASE_URL, "REDIS_URL": REDIS_URL}))
    elif "redis" in wanted:
        print(f"  (Postgres + Redis not reachable, skipped: {problem})")
    saved = {k: os.environ.get(k) for k in ("DATABASE_URL", "REDIS_URL")}
    try:
        for name, env in setups:
            for key in ("DATABASE_URL", "REDIS_URL"):
                os.environ.pop(key, None)
            os.environ.update(env)
            for n in NS:
                with tempfile.TemporaryDirectory(prefix="arena-wsload-") as tmp:
                    stack = Stack(Path(tmp))
                    kept = LOGS / f"websocket_load-{name}-{n}.log"
                    try:
                        stack.env.update(
                            {"LOG_LEVEL": "WARNING", "DEBUG": "false", "SECRET_KEY": secrets.token_hex(32)}
                        )
                        stack.manage("migrate", "--noinput", "-v0")
                        setup = json.loads(
                            stack.python(SETUP.format(n=n, each=DOMAIN_N, domains=DOMAINS, tasks=TASKS))
                            .strip()
                            .splitlines()[-1]
                        )
                        stack.start(workers=WORKERS if name == "redis" else None)
                        server = functools.partial(process_tree_cpu, stack.process.pid if stack.process else 0)
                        domain_of: dict[int, str] = dict(setup["games"])
                        mixed = asyncio.run(drive(stack.port, setup["token"], list(domain_of), server, SECONDS))
                        alone: dict[str, tuple[dict[int, list[float]], list[str], float, float, float, float]] = {}
                        for domain, games in setup["alone"].items() if DOMAIN_N else ():
                            alone[domain] = asyncio.run(
                                drive(stack.port, setup["token"], games, server, DOMAIN_SECONDS)
                            )
                    finally:
                        stack.close()
                        LOGS.mkdir(parents=True, exist_ok=True)
                        if stack.log_path.exists():
                            shutil.copyfile(stack.log_path, kept)
                label = f"ws act->event {name}{f' x{WORKERS}' if name == 'redis' else ''} N={n}"
                _report_run(report, label, mixed, domain_of, kept)
                for domain, run_ in alone.items():
                    by_game, failures, took, _, cpu, _ = run_
                    count = sum(len(found) for found in by_game.values())
                    if count:
                        report(
                            f"  {domain} alone, {DOMAIN_N} games: server CPU per action",
                            1000 * cpu / count,
                            f"ms ({count} actions in {took:.0f} s, p99 "
                            f"{1000 * percentile([x for found in by_game.values() for x in found], 0.99):.0f} ms"
                            f"{f', {len(failures)} failures' if failures else ''})",
                        )
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
