"""Fuzz: 10,000 garbage frames against a live server see no server error and change nothing.

A real Daphne on loopback (``games.tests.server.Stack``; Postgres and Redis when ``DATABASE_URL``
and ``REDIS_URL`` say so). The player is seated (a program seat) but did not create the game, so
even well-formed pause/resume frames change nothing. Every frame below is invalid by construction
(not by asking ``games.schema``): each must be answered by exactly one ``error`` frame that is not
``internal``, on the same connection, and the game's log must stay as it was.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import connect

from games.tests.server import Stack
from games.tests.test_restart import api

pytestmark = [pytest.mark.services, pytest.mark.slow]

BATCH = 100
BATCHES = 100  # 10,000 frames

SETUP = """
from accounts.roles import Role, grant
from accounts.tokens import create_token
from django.contrib.auth import get_user_model
from games.importers import bundled_tasks
bundled_tasks.load(log=lambda line: None)
users = get_user_model().objects
boss = users.create_user("boss", is_staff=True)
grant(boss, Role.RESEARCHER)
player = users.create_user("player")
grant(player, Role.PARTICIPANT)
print(create_token(boss), create_token(player))
"""

json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
any_json = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=12,
)
not_a_seat = (
    st.booleans()
    | st.floats(allow_nan=False)
    | st.integers(max_value=-1)
    | st.integers(min_value=17)
    | st.text(max_size=5).filter(lambda s: not (s.isascii() and s.isdigit()))
    | st.lists(json_leaf, max_size=2)
    | st.dictionaries(st.text(max_size=3), json_leaf, max_size=2)
)
not_text = st.integers() | st.floats(allow_nan=False) | st.booleans() | st.lists(json_leaf, max_size=2)
with_nul = st.tuples(st.text(max_size=10), st.text(max_size=10)).map(lambda p: p[0] + "\x00" + p[1])
bad_since = (
    st.booleans()
    | st.floats(allow_nan=False).filter(lambda f: not f.is_integer())
    | st.integers(max_value=-1)
    | st.text(max_size=4)
)


def dumps(value: object) -> str:
    return json.dumps(value, allow_nan=True)


def nested(depth: int) -> str:
    return '{"type": "act", "action": "x", "deep": ' + "[" * depth + "]" * depth + "}"


frames = st.one_of(
    st.text(max_size=40).filter(lambda t: t.strip() and not t.strip().startswith("{")),  # not JSON objects
    any_json.filter(lambda v: not isinstance(v, dict)).map(dumps),
    st.dictionaries(st.text(max_size=8), any_json, max_size=4)
    .filter(lambda d: d.get("type") not in ("act", "wait", "chat", "pause", "resume", "start", "sync", "ping"))
    .map(dumps),
    st.builds(lambda a, x: {"type": "act", "agent": a, "action": x}, not_a_seat, st.text(min_size=1, max_size=10)).map(
        dumps
    ),
    st.builds(lambda a: {"type": "wait", "agent": a}, not_a_seat).map(dumps),
    st.builds(lambda x: {"type": "act", "action": x}, not_text | with_nul | st.text(min_size=301, max_size=400)).map(
        dumps
    ),
    st.builds(lambda x: {"type": "chat", "text": x}, not_text | with_nul | st.text(min_size=1001, max_size=1100)).map(
        dumps
    ),
    st.builds(lambda s: {"type": "sync", "since": s}, bad_since).map(dumps),
    st.integers(min_value=17, max_value=3000).map(nested),
    st.sampled_from(
        [
            '{"type": "wait", "agent": NaN}',
            '{"type": "act", "agent": Infinity, "action": "x"}',
            '{"type": "chat", "text": "\\udc00"}',
        ]
    ),
    st.binary(min_size=1, max_size=30).filter(lambda b: not _utf8(b)),
    st.sampled_from(['{"type": "pause"}', '{"type": "resume"}']),  # well-formed, but not this player's to send
)


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode()
    except UnicodeDecodeError:
        return False
    return True


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    stack = Stack(tmp_path_factory.mktemp("fuzz"))
    try:
        stack.manage("migrate", "--noinput", "-v0")
        boss, player = stack.python(SETUP).strip().splitlines()[-1].split()
        stack.start()
        game = api(
            stack,
            boss,
            "/api/games/",
            {
                "scenario": "bundled/make-tea",
                "clock": "lockstep",
                "seats": [{"kind": "program", "user": "player"}],
            },
        )
        url = f"ws://127.0.0.1:{stack.port}/ws/games/{game['id']}/"
        # No keepalive pings: their thread draws its payload from the global ``random`` while
        # Hypothesis draws frames, which Hypothesis warns about (HypothesisDeprecationWarning, now
        # and then in CI).
        headers = {"Authorization": f"Token {player}"}
        with connect(url, additional_headers=headers, max_size=2**22, ping_interval=None) as ws:
            while json.loads(ws.recv(timeout=30))["type"] != "state":
                pass
            before = api(stack, boss, f"/api/games/{game['id']}/events/")["events"]
            yield {"stack": stack, "ws": ws, "game": game["id"], "boss": boss, "before": before}
    finally:
        stack.close()


def test_garbage_frames_get_errors_and_change_nothing(live):
    ws = live["ws"]
    sent = 0

    @settings(max_examples=BATCHES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(batch=st.lists(frames, min_size=BATCH, max_size=BATCH))
    def batches(batch: list[str | bytes]) -> None:
        nonlocal sent
        for frame in batch:
            ws.send(frame)
        for frame in batch:
            reply = json.loads(ws.recv(timeout=30))
            assert reply["type"] == "error" and reply["code"] != "internal", (frame, reply)
        sent += len(batch)

    batches()
    assert sent >= BATCH * BATCHES
    ws.send(json.dumps({"type": "ping"}))
    assert json.loads(ws.recv(timeout=30))["type"] == "pong"  # the same connection, still open
    after = api(live["stack"], live["boss"], f"/api/games/{live['game']}/events/")["events"]
    assert after == live["before"]
    log = live["stack"].log_path.read_text()
    assert "Traceback" not in log and " ERROR " not in log
    print(f"fuzz: {sent} frames, 0 server errors, log unchanged ({len(after)} events)")
