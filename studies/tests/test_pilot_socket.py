"""A pilot's game socket against a plain websocket server that floods it, as a busy real-time game
does (every seat's action sends each connected seat a state)."""

from __future__ import annotations

import itertools
import json
import random
import threading
import time

from websockets.sync.client import connect
from websockets.sync.server import serve

from studies import pilot


def test_a_pilot_acts_on_the_newest_of_the_states_waiting_for_it(monkeypatch):
    """Answering every queued state in turn, a pilot fell behind a busy kitchen until its client's
    queue was full; the client then stopped reading, missed the server's pong and the pilot's game
    ended with "keepalive ping timeout". It now acts once on the newest state of a burst."""
    received: list[dict] = []

    def handler(socket):
        for step in range(10):  # a burst, all sent before the pilot reads any
            legal = ["wait", f"goto step{step}"]
            socket.send(json.dumps({"type": "state", "status": "running", "agent": 0, "legal_actions": legal}))
        socket.send(json.dumps({"type": "feedback", "message": "refused"}))
        received.append(json.loads(socket.recv(timeout=10)))  # the pilot's one answer to the burst
        socket.send(json.dumps({"type": "finished"}))
        socket.recv(timeout=10)  # until the pilot closes

    def busy_at_first(*args, **kwargs):  # the pilot is busy while the burst arrives
        socket = connect(*args, **kwargs)
        time.sleep(0.5)
        return socket

    monkeypatch.setattr(pilot, "connect", busy_at_first)
    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.socket.getsockname()[1]}/"
        actions, rejected = pilot.play_game(base, 1, pilot.Browser(base), random.Random(0), 0.0, time.monotonic() + 30)
        server.shutdown()
    assert received == [{"type": "act", "agent": 0, "action": "goto step9"}]
    assert (actions, rejected) == (1, 1)


def test_in_a_real_time_game_a_pilot_acts_at_a_persons_pace():
    """One action per clock unit, at least a second apart (two pilots acting on every state sent a
    kitchen 13 commands a step); in a lockstep game at once."""
    sent_at: list[float] = []

    def state(mode: str, speed: float) -> str:
        clock = {"mode": mode, "speed": speed, "paused": False}
        return json.dumps({"type": "state", "status": "running", "agent": 0, "legal_actions": ["go"], "clock": clock})

    def handler(socket):
        for mode in ("real_time", "real_time", "lockstep", "lockstep"):
            socket.send(state(mode, 2.0))  # 2 units a second: a second apart (the least)
            socket.recv(timeout=10)
            sent_at.append(time.monotonic())
        socket.send(json.dumps({"type": "finished"}))
        socket.recv(timeout=10)

    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.socket.getsockname()[1]}/"
        actions, _ = pilot.play_game(base, 1, pilot.Browser(base), random.Random(0), 0.0, time.monotonic() + 30)
        server.shutdown()
    gaps = [later - earlier for earlier, later in itertools.pairwise(sent_at)]
    assert actions == 4
    assert gaps[0] >= 0.95 and gaps[1] >= 0.95  # after each real-time action
    assert gaps[2] < 0.5  # the lockstep state is answered at once
