"""Bad settings fail at start with one line naming the setting; /healthz checks the services."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from arena_site.config import database_config, env_bool, env_int, redis_url

ROOT = Path(__file__).resolve().parents[2]


def _start(env_overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", "import arena_site.asgi"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_database_url_parsing():
    assert database_config(None, "/tmp/x.sqlite3")["ENGINE"].endswith("sqlite3")
    assert database_config("sqlite:////tmp/y.sqlite3", "unused")["NAME"] == "/tmp/y.sqlite3"
    assert database_config("postgres://u@h:5432/arena", "unused")["NAME"] == "arena"
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL has an unsupported scheme"):
        database_config("mysqlx://nowhere", "unused")
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL names no database"):
        database_config("postgres://u@h:5432", "unused")


def test_redis_url_and_bool_parsing():
    assert redis_url(None) is None
    assert redis_url("redis://127.0.0.1:6379/0")
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        redis_url("http://127.0.0.1:6379")
    os.environ["ARENA_TEST_FLAG"] = "maybe"
    try:
        with pytest.raises(ImproperlyConfigured, match="ARENA_TEST_FLAG must be true or false"):
            env_bool("ARENA_TEST_FLAG", True)
    finally:
        del os.environ["ARENA_TEST_FLAG"]


def test_whole_number_settings_say_what_they_must_be(monkeypatch):
    monkeypatch.delenv("GAME_DB_THREADS", raising=False)
    assert env_int("GAME_DB_THREADS", 2, least=1) == 2
    monkeypatch.setenv("GAME_DB_THREADS", "4")
    assert env_int("GAME_DB_THREADS", 2, least=1) == 4
    for bad, said in (("two", "must be a whole number"), ("0", "must be 1 or more")):
        monkeypatch.setenv("GAME_DB_THREADS", bad)
        with pytest.raises(ImproperlyConfigured, match=f"GAME_DB_THREADS {said}"):
            env_int("GAME_DB_THREADS", 2, least=1)


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("BENCHMARK_WORKERS", "two", "BENCHMARK_WORKERS must be a whole number (got 'two')"),
        ("LLM_CONCURRENCY", "0", "LLM_CONCURRENCY must be 1 or more (got 0)"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'LOUD')"),
        ("GAMES_SCHEDULER", "externl", "GAMES_SCHEDULER must be one of embedded, external, off (got 'externl')"),
    ],
)
def test_a_bad_setting_stops_the_process_with_one_line_naming_it(setting, value, said):
    """These were a traceback without the setting's name (int(), logging), or, for the scheduler,
    accepted: a typo of 'external' silently stopped the servers advancing real-time games."""
    result = _start({setting: value})
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {said}"


def test_production_mode_without_secret_key_refuses_to_start():
    result = _start({"DEBUG": "false"})
    assert result.returncode == 2
    assert result.stderr.strip() == "error: SECRET_KEY must be set when DEBUG is off (production mode)"


def test_unreachable_database_fails_with_one_clear_line():
    result = _start({"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [lines[0]] and lines[0].startswith("error: DATABASE_URL: cannot connect")


def test_unreachable_redis_fails_with_one_clear_line(tmp_path):
    result = _start({"DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3", "REDIS_URL": "redis://127.0.0.1:1/0"})
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: REDIS_URL: cannot reach Redis")


def test_malformed_database_url_names_the_setting(tmp_path):
    result = _start({"DATABASE_URL": "oracle://x/y"})
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: DATABASE_URL has an unsupported scheme")


@pytest.mark.django_db
def test_healthz_reports_database_and_channel_layer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}


def test_a_server_process_keeps_its_start_up_objects_out_of_the_collectors_walks(tmp_path):
    # Every view is imported when the ASGI application loads, and what start-up made is frozen:
    # a full garbage collection under load then walks only what the games made since.
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    env.update({"ARENA_SKIP_STARTUP_CHECKS": "1", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"})
    script = (
        "import gc, sys; import arena_site.asgi; "
        "print(gc.get_freeze_count(), 'studies.views' in sys.modules, 'annotations.views' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    frozen, studies_views, annotation_views = done.stdout.split()
    assert int(frozen) > 50_000
    assert studies_views == annotation_views == "True"
