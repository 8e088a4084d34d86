"""`make serve`: several worker processes on one port (arena_site/serve.py).

Against Postgres + Redis, as deployed: connections spread over the workers (each has its own
SO_REUSEPORT socket), an action taken through one worker reaches viewers connected to the other,
and a worker killed with SIGKILL is replaced while the game goes on with nothing lost.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets

from arena_site import serve
from arena_site.loopback import free_port
from games.tests.server import Stack, process_table
from games.tests.test_restart import CHECK, SETUP, api, next_state, pick

CLIENTS = 16  # all on one of two workers by chance: 1 in 2**15


def test_several_workers_need_postgres_and_redis():
    postgres, redis = "postgres://u@h/db", "redis://h:6379/0"
    assert serve.problem({}, 1) is None  # one worker: the embedded default will do
    assert "REDIS_URL" in serve.problem({"DATABASE_URL": postgres}, 2)
    assert "DATABASE_URL" in serve.problem({"REDIS_URL": redis}, 2)
    assert "DATABASE_URL" in serve.problem({"REDIS_URL": redis, "DATABASE_URL": "sqlite:///x"}, 2)
    assert serve.problem({"REDIS_URL": redis, "DATABASE_URL": postgres}, 2) is None
    assert "1 or more" in serve.problem({}, 0)


def workers_of(supervisor: int) -> list[int]:
    return sorted(pid for pid, (parent, _) in process_table().items() if parent == supervisor)


def websockets_held(pid: int, port: int) -> int:
    """Established TCP connections on local ``port`` whose socket process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port, state, inode = int(fields[1].rsplit(":", 1)[1], 16), fields[3], fields[9]
            held += local_port == port and state == "01" and inode in inodes
    return held


async def collect(ws, seen: dict[int, dict], until_seq: int) -> None:
    while max(seen, default=0) < until_seq:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == "event":
            seen[message["seq"]] = message


@pytest.mark.services
@pytest.mark.slow
def test_workers_share_the_load_and_a_killed_worker_is_replaced(tmp_path):
    if not os.environ.get("DATABASE_URL", "").startswith("postgres") or not os.environ.get("REDIS_URL"):
        pytest.skip("several workers need Postgres and Redis (the services pass sets them)")
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        token = stack.python(SETUP).strip().splitlines()[-1]
        stack.start(workers=2)
        assert stack.process is not None
        deadline = time.monotonic() + 60
        while len(workers_of(stack.process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = workers_of(stack.process.pid)
        assert len(workers) == 2
        game = api(stack, token, "/api/games/", {"domain": "tasks", "scenario": "bundled/make-tea"})
        url = f"ws://127.0.0.1:{stack.port}/ws/games/{game['id']}/?since=0"
        headers = {"Authorization": f"Token {token}"}

        async def spread_and_broadcast() -> tuple[list[int], list[dict[int, dict]], int]:
            clients = [await websockets.connect(url, additional_headers=headers) for _ in range(CLIENTS)]
            states = [await next_state(ws, {}) for ws in clients]
            held = [websockets_held(pid, stack.port) for pid in workers]
            seen: list[dict[int, dict]] = [{} for _ in clients]
            await clients[0].send(json.dumps({"type": "act", "action": pick(states[0]["legal_actions"])}))
            target = states[0]["seq"] + 2  # the action and the rules' answer at least
            await asyncio.gather(*(collect(ws, s, target) for ws, s in zip(clients, seen, strict=True)))
            for ws in clients:
                await ws.close()
            return held, seen, target

        held, seen, target = asyncio.run(spread_and_broadcast())
        assert sum(held) == CLIENTS and all(held), f"connections per worker: {held}"
        assert all(target in s for s in seen), "every viewer, on either worker, hears of the action"

        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            replaced = workers_of(stack.process.pid)
            if len(replaced) == 2 and workers[0] not in replaced:
                break
            time.sleep(0.2)
        assert len(replaced) == 2 and workers[0] not in replaced, "the supervisor starts another worker"
        assert stack.process.poll() is None, "the supervisor itself keeps running"

        async def finish() -> dict:
            async with websockets.connect(url, additional_headers=headers) as ws:
                state = await next_state(ws, {})
                while state["status"] != "finished":
                    await ws.send(json.dumps({"type": "act", "action": pick(state["legal_actions"])}))
                    state = await next_state(ws, {})
                return state

        assert asyncio.run(finish())["metrics"]["progress"] == 100
        check = json.loads(stack.python(CHECK.format(game=game["id"])).strip().splitlines()[-1])
        assert check["same_state"] and check["seqs"] == list(range(1, len(check["seqs"]) + 1))
    finally:
        stack.close()


def test_a_bad_setting_stops_serve_with_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("ARENA_SKIP_STARTUP_CHECKS", None)
    env.update({"ARENA_VAR_DIR": str(tmp_path), "REDIS_URL": "redis://127.0.0.1:1/0"})
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "arena_site.serve", "--workers", "2", "--port", str(free_port())]
    refused = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "DATABASE_URL" in refused.stderr  # before any worker starts
    env["DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/arena"  # nothing listens there
    failed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2
    assert "error: DATABASE_URL: cannot connect" in failed.stderr
    assert "stopped at start" in failed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", [None, 1], ids=["make run (Daphne)", "make serve (uvicorn)"])
def test_an_oversized_frame_is_answered_and_a_huge_one_closes_only_its_connection(tmp_path, workers):
    """Over 8,000 bytes: a bad_frame error and the connection stays open. Over 1 MiB the server does
    not read it into memory but closes that connection (uvicorn with 1009, message too big, where its
    own limit is 16 MiB; Daphne drops it before its close frame arrives); another connection to the
    game works on."""
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        token = stack.python(SETUP).strip().splitlines()[-1]
        stack.start(workers=workers)
        game = api(stack, token, "/api/games/", {"domain": "tasks", "scenario": "bundled/make-tea"})
        url = f"ws://127.0.0.1:{stack.port}/ws/games/{game['id']}/?since=0"
        headers = {"Authorization": f"Token {token}"}

        async def play() -> tuple[dict, int | None, int, int]:
            async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
                await next_state(ws, {})
                await ws.send(json.dumps({"type": "chat", "text": "x" * 9_000}))
                answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
                try:
                    await ws.send(json.dumps({"type": "chat", "text": "x" * (2 * 1024 * 1024)}))
                    while True:
                        await asyncio.wait_for(ws.recv(), 30)
                except websockets.ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else None  # None: no close frame came
            async with websockets.connect(url, additional_headers=headers) as ws:
                state = await next_state(ws, {})
                await ws.send(json.dumps({"type": "act", "action": pick(state["legal_actions"])}))
                after = await next_state(ws, {})
            return answer, code, state["seq"], after["seq"]

        answer, code, before, after = asyncio.run(play())
    finally:
        stack.close()
    assert answer["type"] == "error" and answer["code"] == "bad_frame" and "8000 bytes" in answer["message"]
    assert code == 1009 if workers else code in (1009, None)  # closed, not answered with bad_frame
    assert after > before  # the game took the next connection's action
