"""A real Daphne process on loopback for end-to-end tests (restart safety, the browser).

It gets its own database: a SQLite file in a temporary folder (the embedded default), or, when
``DATABASE_URL`` points at Postgres, a fresh database created next to it and dropped afterwards.
``REDIS_URL`` is passed through, so the Postgres + Redis pass runs the real production stack.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from arena_site.loopback import ServerExited, ServerTimedOut, free_port, stop, wait_for_http

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 90  # seconds; two busy cores can make Django's start slow


def process_table() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds used so far) of every process (Linux ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        table[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return table


def descendants(root: int, table: dict[int, tuple[int, float]]) -> set[int]:
    """``root``'s children, their children, and so on."""
    found: set[int] = set()
    more = {pid for pid, (parent, _) in table.items() if parent == root}
    while more:
        found |= more
        more = {pid for pid, (parent, _) in table.items() if parent in more} - found
    return found


def server_command(host: str, port: int, workers: int | None) -> list[str]:
    """What ``make run`` starts (one Daphne process) or, with ``workers``, ``make serve``."""
    if workers is None:
        return [sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "arena_site.asgi:application"]
    return [sys.executable, "-m", "arena_site.serve", "--host", host, "--port", str(port), "--workers", str(workers)]


class Stack:
    """A database, the env to reach it, and a server (Daphne, or make serve's workers) started and
    killed on demand."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        self.env.update(
            {
                "ARENA_VAR_DIR": str(tmp / "var"),
                "DJANGO_SETTINGS_MODULE": "arena_site.settings",
                "GAMES_SCHEDULER": "embedded",
                "PYTHONUNBUFFERED": "1",
            }
        )
        self.env.pop("ARENA_SKIP_STARTUP_CHECKS", None)
        self._pg_admin_url: str | None = None
        self._pg_name: str | None = None
        url = os.environ.get("DATABASE_URL", "")
        if url.startswith("postgres"):
            self._create_postgres(url)
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = tmp / "server.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _create_postgres(self, url: str) -> None:
        import psycopg

        parsed = urlparse(url)
        self._pg_name = f"arena_e2e_{uuid.uuid4().hex[:10]}"
        self._pg_admin_url = urlunparse(parsed._replace(path="/postgres"))
        with psycopg.connect(self._pg_admin_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self._pg_name}"')
        self.env["DATABASE_URL"] = urlunparse(parsed._replace(path=f"/{self._pg_name}"))

    def manage(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def python(self, code: str) -> str:
        """Run ``code`` with Django set up against this stack's database; return its stdout."""
        script = "import django; django.setup()\n" + code
        result = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        if result.returncode != 0:
            raise RuntimeError(f"script failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def start(self, *, workers: int | None = None) -> None:
        """One Daphne process (as ``make run``), or ``workers`` uvicorn worker processes on one
        port (as ``make serve``; several need Postgres and Redis)."""
        with self.log_path.open("ab") as log:  # the server writes through its own copy of the handle
            self.process = subprocess.Popen(
                server_command("127.0.0.1", self.port, workers),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for_http(self.process, f"{self.base}/healthz", timeout=START_TIMEOUT)
        except ServerExited as exited:
            raise RuntimeError(f"the server exited with {exited.returncode}:\n{self.log_path.read_text()}") from None
        except ServerTimedOut:
            raise RuntimeError(
                f"the server did not answer within {START_TIMEOUT} s:\n{self.log_path.read_text()}"
            ) from None

    def kill9(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process, timeout=20)
        self.process = None

    def close(self) -> None:
        self.stop()
        if self._pg_name and self._pg_admin_url:
            import psycopg

            with psycopg.connect(self._pg_admin_url, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{self._pg_name}" WITH (FORCE)')
