"""``manage.py pilot_study`` end to end: scripted participants on a real Daphne (started by the
command), over HTTP and the play websocket, from consent to the completion code.

Runs the real commands as subprocesses on a throwaway SQLite database, so the server, the pilots
and the NPC work share nothing with the test process but that file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_spec("games.routing") is None, reason="the play websocket (games.routing) is not installed"
    ),
]

SETUP = """
from games.importers.bundled_tasks import load
from studies import services
load(log=lambda line: None)
study = services.create_study(title="Pilot test", slug="pilot-test", completion_code="PILOT-OK", clock_mode="lockstep")
services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
services.add_condition(study, name="Random teammate", npc_kind="random", npc_count=1)
from games.scenarios import current_scenario
services.add_scenario(study, current_scenario("bundled/make-tea"))
services.add_onboarding_page(study, kind="text", title="Rules", body="Make tea.")
"""


# A pilot gives up well before the test kills the command (900 s), so a failure ends in the
# command's report (the pilot's error and the end of the server's log) instead of a bare timeout.
PILOT_TIMEOUT = "420"


def manage(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_pilots_complete_a_draft_study_through_the_real_server(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env["ARENA_VAR_DIR"] = str(tmp_path)
    for command in (["migrate", "-v0"], ["shell", "-c", SETUP]):
        done = manage(env, *command)
        assert done.returncode == 0, done.stderr[-3000:]

    run = manage(
        env,
        "pilot_study",
        "pilot-test",
        "--participants",
        "2",
        "--think",
        "0",
        "--timeout",
        PILOT_TIMEOUT,
        "--json",
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(run.stdout[run.stdout.index("{") :])
    assert report["completed"] == 2 and report["failed"] == []
    assert report["episodes"] == 4 and report["actions"] > 0
    assert report["wrong_completion_code"] == [] and report["not_marked_as_pilot"] == []

    with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
        participants = db.execute("SELECT status, is_pilot FROM studies_participant").fetchall()
        assert participants == [("completed", 1), ("completed", 1)]
        finished = db.execute(
            "SELECT COUNT(*) FROM studies_episode e JOIN games_game g ON g.id = e.game_id "
            "WHERE e.status = 'done' AND g.status = 'finished'"
        ).fetchone()[0]
        assert finished == 4
        answers = db.execute("SELECT COUNT(*) FROM studies_response").fetchone()[0]
        items, about_teammates = db.execute(
            "SELECT COUNT(*), SUM(needs_teammates) FROM studies_questionnaireitem"
        ).fetchone()
        assert 0 < about_teammates < items
        # Each pilot plays once alone (not asked about teammates) and once with a random teammate.
        assert answers == 2 * ((items - about_teammates) + items)
        npc_seats = db.execute(
            "SELECT COUNT(*) FROM games_seat WHERE kind = 'npc' AND dispatcher = 'random'"
        ).fetchone()
        assert npc_seats[0] == 2  # one random teammate in each pilot's second condition


def test_the_report_ends_with_the_end_of_the_server_log(tmp_path: Path):
    from studies.management.commands.pilot_study import tail

    with (tmp_path / "server.log").open("w+b") as log:
        log.write(b"start\n" + b"x" * 5000 + b"\nTraceback: VariableDoesNotExist\n")
        shown = tail(log)
    assert len(shown) == 3000 and shown.endswith("Traceback: VariableDoesNotExist\n") and "start" not in shown
