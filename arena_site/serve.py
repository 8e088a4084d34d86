"""``make serve``: the app on several worker processes, the way to use more than one core.

``make run`` starts one Daphne process: the embedded default (SQLite, in-memory channel layer)
cannot be shared between processes. With Postgres (``DATABASE_URL``) and Redis (``REDIS_URL``)
nothing about a game lives in one process (its log is in the database, its clock is computed,
viewers hear of changes through Redis), so N uvicorn workers can serve one port.

Each worker listens on its own socket with ``SO_REUSEPORT``, so the kernel spreads new connections
evenly between them. (Workers sharing one listening socket, as ``uvicorn --workers`` does, leave it
to whichever wakes first: measured here, one worker took all 200 websockets of the load benchmark
while the other idled. Websockets live long, so where they land is where the load stays.)

This module is the small supervisor around them: it starts the workers, restarts one that dies
(one that exits with an error within ``EARLY_EXIT_SECONDS`` of starting means a bad setting:
everything stops with its exit code; one killed by a signal is always replaced), and passes
Ctrl+C / SIGTERM on. Usage: ``python -m arena_site.serve [--workers N] [--host H] [--port P]``
(defaults from WORKERS, HOST, PORT; WORKERS defaults to the CPU count).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping

APP = "arena_site.asgi:application"
# A worker that fails within this long of starting is taken for a bad setting (stop, say why); later
# exits are crashes (start another). Generous, because a loaded 2-core machine can take over 15 s to
# import the app and fail its database check.
EARLY_EXIT_SECONDS = 60.0
STOP_SECONDS = 20.0


def problem(env: Mapping[str, str], workers: int) -> str | None:
    """Why these settings cannot serve ``workers`` processes, or None."""
    if workers < 1:
        return "WORKERS must be 1 or more"
    if workers > 1 and not env.get("REDIS_URL"):
        return "several workers need REDIS_URL (the in-memory channel layer cannot reach other processes)"
    if workers > 1 and not env.get("DATABASE_URL", "").startswith("postgres"):
        return "several workers need DATABASE_URL=postgres://... (SQLite takes one writer at a time)"
    return None


def worker_command(host: str, port: int) -> list[str]:
    return [sys.executable, "-m", "arena_site.serve", "--worker", "--host", host, "--port", str(port)]


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket of this worker's own on ``host:port``, shared with the other workers' by the kernel."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


# Frames up to this size reach the consumer, which answers one over schema.MAX_FRAME_BYTES with a
# bad_frame error; a larger one is not read into memory: the server closes the connection (1009).
# Daphne's default (make run), where uvicorn's own is 16 MiB.
WS_MAX_BYTES = 1024 * 1024


def run_worker(host: str, port: int) -> None:
    import uvicorn

    config = uvicorn.Config(
        APP,
        host=host,
        port=port,
        lifespan="off",  # the app has no startup/shutdown hooks (Channels' router refuses lifespan)
        access_log=False,  # no line per websocket
        ws_per_message_deflate=False,  # CPU is better spent on games (Daphne does not compress either)
        ws_max_size=WS_MAX_BYTES,
    )
    uvicorn.Server(config).run(sockets=[listening_socket(host, port)])


def supervise(host: str, port: int, workers: int) -> int:
    """Run ``workers`` workers until a signal (exit 0) or a worker dies at start (its exit code)."""
    processes: dict[int, tuple[subprocess.Popen[bytes], float]] = {}
    state = {"stopping": False, "code": 0}

    env = {**os.environ, "ARENA_SERVE_WORKERS": str(workers)}  # games.presence: others are alive

    def start(slot: int) -> None:
        processes[slot] = (subprocess.Popen(worker_command(host, port), env=env), time.monotonic())

    def stop(signum: int = signal.SIGTERM, _frame: object = None) -> None:
        if not state["stopping"]:
            state["stopping"] = True
            for process, _ in processes.values():
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for slot in range(workers):
        start(slot)
    stopping_since = None
    while processes:
        time.sleep(0.2)
        if state["stopping"] and stopping_since is None:
            stopping_since = time.monotonic()
        if stopping_since is not None and time.monotonic() - stopping_since > STOP_SECONDS:
            for process, _ in processes.values():
                process.kill()
        for slot, (process, started) in list(processes.items()):
            code = process.poll()
            if code is None:
                continue
            del processes[slot]
            if state["stopping"]:
                continue
            if code > 0 and time.monotonic() - started < EARLY_EXIT_SECONDS:
                sys.stderr.write(f"error: worker {process.pid} stopped at start (exit {code}); stopping\n")
                state["code"] = code or 1
                stop()
            else:
                sys.stderr.write(f"worker {process.pid} exited ({code}); starting another\n")
                start(slot)
    return int(state["code"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS") or os.cpu_count() or 1))
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.host, args.port)
        return
    why = problem(os.environ, args.workers)
    if why:
        sys.stderr.write(f"error: {why}\n")
        raise SystemExit(2)
    print(f"serving on http://{args.host}:{args.port}/ with {args.workers} worker process(es)", flush=True)
    raise SystemExit(supervise(args.host, args.port, args.workers))


if __name__ == "__main__":
    main()
