"""The websocket Origin check compares the port; production settings pass ``check --deploy``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.websocket import origin_allowed

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),  # issue 15: another port, same host
        ("http://localhost:8000", "127.0.0.1:8000", "ws", False),
        ("https://localhost", "localhost", "wss", True),
        ("https://localhost", "localhost:8443", "wss", False),
        ("http://evil.example:8000", "evil.example:8000", "ws", False),  # not in ALLOWED_HOSTS
        ("null", "127.0.0.1:8000", "ws", False),
        ("file://", "127.0.0.1:8000", "ws", False),
        ("http://localhost", None, "ws", True),  # no Host header: the scheme's default port only
        ("http://localhost:3000", None, "ws", False),
    ],
)
def test_the_origin_must_be_this_sites_host_and_port(settings, origin, host, scheme, allowed):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    assert origin_allowed(origin, host, scheme) is allowed


def test_a_trusted_origin_passes_behind_a_proxy(settings):
    settings.ALLOWED_HOSTS = ["arena.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://arena.example.org"]
    assert origin_allowed("https://arena.example.org", "127.0.0.1:8000", "ws")
    assert not origin_allowed("https://arena.example.org:8443", "127.0.0.1:8000", "ws")


def test_production_settings_pass_check_deploy_without_warnings(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SETTINGS"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "arena_site.settings",
            "DEBUG": "false",
            "SECRET_KEY": "k" * 10 + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-_=+",
            "ALLOWED_HOSTS": "arena.example.org",
            "ARENA_VAR_DIR": str(tmp_path),
            "ARENA_SKIP_STARTUP_CHECKS": "1",
        }
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
