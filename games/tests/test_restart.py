"""Restart safety: kill -9 a real Daphne mid-game, start it again, and the game resumes with
nothing lost (every log entry the client saw or missed is there, in order; the stored state equals
the state rebuilt from the log; the game plays on to its end)."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
import websockets

from games.tests.server import Stack

pytestmark = [pytest.mark.services, pytest.mark.slow]

SETUP = """
from accounts.tokens import create_token
from django.contrib.auth import get_user_model
from games.importers import bundled_tasks
bundled_tasks.load(log=lambda line: None)
bot = get_user_model().objects.create_user("bot")
print(create_token(bot))
"""

CHECK = """
import json
from games import selectors
from games.models import Game, GameEvent
game = Game.objects.get(pk={game})
rules = selectors.game_rules(game)
_, stored = selectors.current_state(game)
rebuilt = selectors.rebuild_state(game)
print(json.dumps({{
    "same_state": rules.dump_state(stored) == rules.dump_state(rebuilt),
    "seqs": list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)),
    "status": game.status,
    "result": game.result,
}}))
"""


def api(stack: Stack, token: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    with urllib.request.urlopen(urllib.request.Request(stack.base + path, data, headers), timeout=30) as response:
        return json.load(response)


async def next_state(ws, seen: dict[int, dict]) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == "event":
            seen[message["seq"]] = message
        if message["type"] in ("state", "finished"):
            return message


def pick(actions: list[str]) -> str:
    return next((a for a in actions if a != "wait"), "wait")


async def play(url: str, token: str, seen: dict[int, dict], *, since: int | None, moves: int | None) -> dict:
    """Play ``moves`` actions (None: to the end); return the last state or finished message."""
    full = url + (f"?since={since}" if since is not None else "")
    async with websockets.connect(full, additional_headers={"Authorization": f"Token {token}"}) as ws:
        state = await next_state(ws, seen)
        done = 0
        while state["type"] == "state" and state["status"] != "finished" and (moves is None or done < moves):
            await ws.send(json.dumps({"type": "act", "action": pick(state["legal_actions"])}))
            state = await next_state(ws, seen)
            done += 1
        if state["type"] == "state" and state["status"] == "finished":
            state = await next_state(ws, seen)  # the finished message follows the last state
        return state


async def act_and_crash(url: str, token: str, stack: Stack, seen: dict[int, dict]) -> None:
    """Send an action and kill the server without waiting for the answer."""
    async with websockets.connect(url, additional_headers={"Authorization": f"Token {token}"}) as ws:
        state = await next_state(ws, seen)
        await ws.send(json.dumps({"type": "act", "action": pick(state["legal_actions"])}))
        stack.kill9()


def test_kill_9_mid_game_then_restart_resumes_with_nothing_lost(tmp_path):
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        token = stack.python(SETUP).strip().splitlines()[-1]
        stack.start()
        game = api(
            stack, token, "/api/games/", {"domain": "tasks", "scenario": "bundled/make-tea", "clock": "lockstep"}
        )
        url = f"ws://127.0.0.1:{stack.port}/ws/games/{game['id']}/"
        seen: dict[int, dict] = {}

        asyncio.run(play(url, token, seen, since=0, moves=3))
        asyncio.run(act_and_crash(url, token, stack, seen))
        last_seen = max(seen)

        stack.start()
        finished = asyncio.run(play(url, token, seen, since=last_seen, moves=None))
        assert finished["type"] == "finished", finished
        assert finished["metrics"]["progress"] == 100
        assert finished["metrics"]["completion_time"] is not None

        check = json.loads(stack.python(CHECK.format(game=game["id"])).strip().splitlines()[-1])
        assert check["same_state"], "the stored state must equal the state rebuilt from the log"
        assert check["seqs"] == list(range(1, len(check["seqs"]) + 1)), "the log has no gaps"
        assert sorted(seen) == check["seqs"], "the client saw every entry, including those missed while down"
        assert check["status"] == "finished" and check["result"] == finished["metrics"]
    finally:
        stack.close()
