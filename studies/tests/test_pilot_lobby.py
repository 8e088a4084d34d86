"""Issue 16 item 8 end to end: pilots recruited Prolific-style (PROLIFIC_PID, STUDY_ID, SESSION_ID
in the link) run a study whose condition is a two-cook kitchen, on a real Daphne started by
``manage.py pilot_study``: two pilots meet in the lobby and share one game (its clock waits for
both), the third waits out the lobby timeout and plays with a backfill NPC; all answer the
questionnaires and end on the recruiter's completion redirect.

Runs the real commands as subprocesses on a throwaway SQLite database, like test_pilot_study.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from studies.tests.test_pilot_study import PILOT_TIMEOUT, manage

pytestmark = [pytest.mark.slow]

COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc={code}"

SETUP = """
from games.importers.bundled_kitchen import load
from games.scenarios import current_scenario
from studies import services
load(log=lambda line: None)
study = services.create_study(
    title="Two cooks", slug="two-cooks", completion_code="C0DE42", design="between",
    clock_mode="real_time", seconds_per_time_unit=0.05,
    completion_url="COMPLETE_URL",
)
services.add_condition(
    study, name="Two cooks", npc_kind="none", npc_count=0, human_count=2,
    lobby_timeout_seconds=20, backfill_kind="random",
)
services.add_scenario(study, current_scenario("bundled/warm-up"))
services.add_onboarding_page(study, kind="text", title="Rules", body="Cook together.")
""".replace("COMPLETE_URL", COMPLETE_URL)


def test_prolific_pilots_share_a_kitchen_through_the_lobby_and_reach_the_completion_redirect(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env["ARENA_VAR_DIR"] = str(tmp_path)
    for command in (["migrate", "-v0"], ["shell", "-c", SETUP]):
        done = manage(env, *command)
        assert done.returncode == 0, done.stderr[-3000:]

    run = manage(
        env,
        "pilot_study",
        "two-cooks",
        "--participants",
        "3",
        "--think",
        "0",
        "--timeout",
        PILOT_TIMEOUT,
        "--prolific",
        "--json",
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(run.stdout[run.stdout.index("{") :])
    assert report["completed"] == 3 and report["failed"] == []
    assert report["redirects"] == [COMPLETE_URL.format(code="C0DE42")]
    assert report["wrong_completion_code"] == [] and report["not_marked_as_pilot"] == []

    with sqlite3.connect(tmp_path / "arena.sqlite3") as db:
        people = db.execute("SELECT external_id, entry_params, status FROM studies_participant").fetchall()
        assert len(people) == 3 and {status for *_, status in people} == {"completed"}
        for external_id, params, _ in people:
            assert external_id.startswith("pilot-")  # the PROLIFIC_PID of the link
            captured = json.loads(params)
            assert captured["STUDY_ID"] == "pilot-two-cooks" and captured["SESSION_ID"].startswith("session-")
        lobbies = db.execute("SELECT status, humans, backfilled, game_id FROM studies_lobby ORDER BY humans").fetchall()
        assert [(s, h, b) for s, h, b, _ in lobbies] == [("started", 1, 1), ("started", 2, 0)]
        shared_game = lobbies[1][3]
        seats = db.execute(
            "SELECT kind, user_id IS NOT NULL FROM games_seat WHERE game_id = ? ORDER BY agent", (shared_game,)
        ).fetchall()
        assert seats == [("human", 1), ("human", 1)]
        # the shared game's clock started only once both were connected and had pressed Start:
        # its "waiting" pause, then the reading gate, one pilot ready, and the clock, before any action
        kinds = [
            row[0]
            for row in db.execute(
                "SELECT kind FROM games_gameevent WHERE game_id = ? AND category IN ('control', 'action') ORDER BY seq",
                (shared_game,),
            )
        ]
        assert kinds[:5] == ["created", "paused", "paused", "ready", "resumed"], kinds[:6]
        backfilled_game = lobbies[0][3]
        assert db.execute(
            "SELECT kind, dispatcher FROM games_seat WHERE game_id = ? ORDER BY agent", (backfilled_game,)
        ).fetchall() == [("human", ""), ("npc", "random")]
        episodes = db.execute("SELECT COUNT(DISTINCT game_id), COUNT(*) FROM studies_episode").fetchone()
        assert episodes == (2, 3)
        answers = db.execute("SELECT COUNT(DISTINCT episode_id) FROM studies_response").fetchone()[0]
        assert answers == 3
