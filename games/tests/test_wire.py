"""How the websocket writes its JSON frames and reaches the database (``games.codec.wire_text``,
``games.consumers.db``)."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
import time

import pytest

from games import consumers
from games.codec import wire_text

FRAME = {
    "type": "state",
    "seq": 12,
    "time": 7.5,
    "legal_actions": ["wash dish", "wait"],
    "legal_actions_by_agent": {"0": ["wash dish"]},
    "observation": {"agent": 0, "text": 'naïve "quotes" <b> \u2028 ✓', "data": {"nested": [1, None, 2.25, True]}},
    "metrics": {"score": 0.1 + 0.2, "tiny": 1e-05, "big": 2**53},
}


def test_a_frame_reads_back_as_the_standard_librarys_encoding_reads():
    assert json.loads(wire_text(FRAME)) == json.loads(json.dumps(FRAME)) == FRAME


def test_whole_number_keys_and_integers_beyond_64_bits_are_still_written():
    assert json.loads(wire_text({"by_agent": {0: "a", 1: "b"}})) == {"by_agent": {"0": "a", "1": "b"}}
    assert json.loads(wire_text({"n": 2**70})) == {"n": 2**70}  # orjson refuses it; the fallback writes it


WHO = contextvars.ContextVar("who", default="nobody")


@pytest.mark.django_db
def test_database_work_runs_off_the_event_loop_in_the_callers_context():
    def work(x: int, *, y: int) -> tuple[int, str, int]:
        return x + y, WHO.get(), threading.get_ident()

    async def main() -> tuple[tuple[int, str, int], int]:
        WHO.set("player 1")
        return await consumers.db(work)(2, y=3), threading.get_ident()

    (total, who, thread), loop_thread = asyncio.run(main())
    assert (total, who) == (5, "player 1")
    assert thread != loop_thread


@pytest.mark.django_db
def test_on_postgres_database_work_shares_a_pool_of_game_db_threads_threads(settings):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs it in Django's one sync thread")

    def name() -> str:
        time.sleep(0.02)  # long enough that a pool with room for more would use more
        return threading.current_thread().name

    async def main() -> list[str]:
        return await asyncio.gather(*(consumers.db(name)() for _ in range(4 * settings.GAME_DB_THREADS)))

    names = set(asyncio.run(main()))
    assert all(n.startswith("game-db") for n in names)
    assert 1 <= len(names) <= settings.GAME_DB_THREADS


@pytest.mark.django_db
def test_database_work_that_fails_raises_in_the_caller():
    def broken() -> None:
        raise LookupError("no such game")

    async def main() -> None:
        await consumers.db(broken)()

    with pytest.raises(LookupError, match="no such game"):
        asyncio.run(main())
