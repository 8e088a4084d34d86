"""Helper servers on 127.0.0.1: a free port, waiting for a started process to answer, stopping it.

Used wherever the project starts a server of its own as a subprocess (the pilot command's Daphne,
the offline LLM server, the kill -9 test's Daphne). Plain Python: no Django import.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request


class ServerDidNotStart(RuntimeError):
    """The process exited, or did not answer in time; callers say which server and show its log."""


class ServerExited(ServerDidNotStart):
    def __init__(self, returncode: int) -> None:
        super().__init__(f"exited with {returncode}")
        self.returncode = returncode


class ServerTimedOut(ServerDidNotStart):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not answer within {seconds:g} s")
        self.seconds = seconds


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_http(
    process: subprocess.Popen[bytes], url: str, *, timeout: float, poll: float = 0.3, request_timeout: float = 2.0
) -> None:
    """Return once ``url`` answers 200; raise ServerExited or ServerTimedOut otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        returncode = process.poll()
        if returncode is not None:
            raise ServerExited(returncode)
        try:
            with urllib.request.urlopen(url, timeout=request_timeout) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServerTimedOut(timeout)
        time.sleep(poll)


def stop(process: subprocess.Popen[bytes], *, timeout: float = 15.0) -> None:
    """Terminate, then kill if it has not exited within ``timeout`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
