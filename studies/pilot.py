"""Scripted pilot participants: they go through a study exactly as a person would, over HTTP and the
play websocket of a running server (consent, onboarding, every episode, every questionnaire, the
completion code), so a researcher can test a study end to end before launch.

Each bot is a plain HTTP client with its own cookie jar (its own session) and plays its games through
``ws/games/<id>/`` with that session, like the browser does. Bots only read what the pages show: the
``data-step`` marker of the participant pages, the form fields, and the websocket's JSON.
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

STEP = re.compile(r'data-step="(\w+)"')
ATTR = re.compile(r'data-(index|status|game)="([^"]*)"')
ITEM = re.compile(r'name="(item-\d+)"')
CODE = re.compile(r'id="completion-code">([^<]+)<')
REDIRECT = re.compile(r'id="recruiter-redirect" href="([^"]+)"')
MAX_PAGES = 200


class PilotError(Exception):
    pass


@dataclass
class PilotResult:
    participant: str
    completed: bool = False
    completion_code: str = ""
    redirect_url: str = ""  # the recruiter's completion link the last page sends the participant to
    episodes: int = 0
    actions: int = 0
    rejected: int = 0
    seconds: float = 0.0
    error: str = ""
    log: list[str] = field(default_factory=list)


class Browser:
    """Just enough of a browser: cookies, redirects, CSRF tokens."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.timeout = timeout

    def cookie(self, name: str) -> str:
        return next((c.value or "" for c in self.jar if c.name == name), "")

    def get(self, path: str) -> tuple[str, str]:
        return self._open(urllib.request.Request(self.base_url + path))

    def post(self, path: str, data: dict[str, str]) -> tuple[str, str]:
        form = {"csrfmiddlewaretoken": self.cookie("csrftoken"), **data}
        request = urllib.request.Request(
            self.base_url + path,
            data=urllib.parse.urlencode(form).encode(),
            headers={"X-CSRFToken": self.cookie("csrftoken")},
        )
        return self._open(request)

    def _open(self, request: urllib.request.Request) -> tuple[str, str]:
        """(final URL, body) after redirects; 4xx pages are returned too (they say what went wrong)."""
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return response.geturl(), response.read().decode()
        except urllib.error.HTTPError as error:
            if error.code >= 500:
                raise PilotError(f"{request.full_url} answered {error.code}") from None
            return error.geturl(), error.read().decode()


def _page(body: str) -> tuple[str, dict[str, str]]:
    match = STEP.search(body)
    if match is None:
        raise PilotError("the page has no study step marker; is this the study's participant page?")
    return match.group(1), dict(ATTR.findall(body[match.start() : match.start() + 400]))


def run_participant(
    base_url: str,
    study_slug: str,
    pilot_token: str,
    external_id: str,
    *,
    seed: int = 0,
    think_seconds: float = 0.2,
    timeout_seconds: float = 900.0,
    log: Callable[[str], None] | None = None,
    lobby_poll_seconds: float = 1.0,
    entry_params: dict[str, str] | None = None,
    id_param: str = "pid",
) -> PilotResult:
    """One scripted participant from the study link to the completion code (or the recruiter's
    completion redirect, which is recorded). ``id_param`` names the link parameter carrying
    ``external_id`` (Prolific: PROLIFIC_PID); ``entry_params`` are extra link parameters, e.g.
    Prolific's STUDY_ID and SESSION_ID; pilots in a shared condition meet other
    pilots in its lobby (so several pilots fill the human seats) or get its backfill."""
    result = PilotResult(participant=external_id)
    rng = random.Random(seed)
    started = time.monotonic()

    def note(line: str) -> None:
        result.log.append(line)
        if log is not None:
            log(f"[{external_id}] {line}")

    browser = Browser(base_url)
    entry = f"/studies/s/{study_slug}/"
    step_path = f"/studies/s/{study_slug}/step/"
    try:
        query = {id_param: external_id, "pilot": pilot_token, **(entry_params or {})}
        _, body = browser.get(f"{entry}?{urllib.parse.urlencode(query)}")
        for _ in range(MAX_PAGES):
            if time.monotonic() - started > timeout_seconds:
                raise PilotError(f"not finished after {timeout_seconds:.0f} s")
            kind, attrs = _page(body)
            if kind == "consent":
                note("consents")
                _, body = browser.post(
                    entry, {"choice": "agree", "agree": "1", "pid": external_id, "pilot": pilot_token}
                )
            elif kind == "onboarding":
                note(f"reads onboarding page {int(attrs['index']) + 1}")
                _, body = browser.post(step_path, {"action": "onboarding", "index": attrs["index"]})
            elif kind == "lobby":
                # a shared condition: wait (as the lobby page does, asking every couple of seconds)
                # for the other participants, who may be other pilots, or for the timeout's backfill
                note(f"waits in the lobby of episode {int(attrs['index']) + 1}")
                waited = time.monotonic()
                while kind == "lobby":
                    if time.monotonic() - started > timeout_seconds:
                        raise PilotError(f"still in the lobby after {timeout_seconds:.0f} s")
                    time.sleep(lobby_poll_seconds)
                    _, body = browser.get(step_path)
                    kind, attrs = _page(body)
                note(f"left the lobby after {time.monotonic() - waited:.0f} s")
            elif kind == "episode" and attrs.get("status") == "pending":
                note(f"starts episode {int(attrs['index']) + 1}")
                browser.post(step_path, {"action": "start", "index": attrs["index"]})  # lands on the game page
                _, body = browser.get(step_path)
            elif kind == "episode":
                game_id = int(attrs["game"])
                actions, rejected = play_game(base_url, game_id, browser, rng, think_seconds, started + timeout_seconds)
                result.actions += actions
                result.rejected += rejected
                result.episodes += 1
                note(f"played game {game_id}: {actions} actions, {rejected} rejected")
                _, body = browser.get(step_path)
            elif kind == "questionnaire":
                items = sorted(set(ITEM.findall(body)))
                answers = {name: str(rng.randint(1, 5)) for name in items}
                note(f"answers {len(items)} items after episode {int(attrs['index']) + 1}")
                _, body = browser.post(step_path, {"action": "questionnaire", "index": attrs["index"], **answers})
            elif kind == "complete":
                match = CODE.search(body)
                result.completion_code = match.group(1).strip() if match else ""
                result.completed = bool(result.completion_code)
                link = REDIRECT.search(body)
                result.redirect_url = html.unescape(link.group(1)) if link else ""
                note(f"finished with completion code {result.completion_code}")
                break
            else:
                message = re.sub(r"<[^>]+>", " ", body[body.find("data-step") :][:600])
                raise PilotError(f"stopped at step {kind!r}: {' '.join(message.split())[:200]}")
        else:
            raise PilotError(f"still not done after {MAX_PAGES} pages")
    except (PilotError, OSError, ConnectionClosed) as error:
        result.error = f"{type(error).__name__}: {error}" if not isinstance(error, PilotError) else str(error)
        note(f"failed: {result.error}")
    result.seconds = time.monotonic() - started
    return result


def play_game(
    base_url: str, game_id: int, browser: Browser, rng: random.Random, think_seconds: float, deadline: float
) -> tuple[int, int]:
    """Play agent 0 of a game over the websocket with random legal actions until it ends."""
    ws_url = base_url.replace("http", "ws", 1).rstrip("/") + f"/ws/games/{game_id}/"
    cookie = "; ".join(f"{c.name}={c.value}" for c in browser.jar)
    headers = {"Cookie": cookie, "Origin": base_url.rstrip("/")}
    actions = rejected = 0
    pending: dict[str, Any] | None = None  # the newest state the pilot may act in
    next_act = 0.0  # monotonic time of its next action (real-time games: a person's pace)
    with connect(ws_url, additional_headers=headers, open_timeout=30, max_size=2**24) as socket:
        while True:
            if time.monotonic() > deadline:
                raise PilotError(f"game {game_id} did not end in time")
            try:
                messages = _waiting(socket, timeout=5.0 if pending is None else max(0.0, next_act - time.monotonic()))
            except TimeoutError:
                if pending is None:
                    socket.send(json.dumps({"type": "sync"}))
                    continue
                messages = []  # its turn to act, on the newest state it has
            for message in messages:
                kind = message.get("type")
                if kind == "finished":
                    return actions, rejected
                if kind == "error" and message.get("code") == "forbidden":
                    raise PilotError(f"the server refused the game: {message.get('message')}")
                if kind == "feedback":
                    rejected += 1
                if kind == "state":
                    if (message.get("clock") or {}).get("pause_reason") == "ready":
                        # the game waits for its player to read the brief and press Start
                        time.sleep(think_seconds * rng.random())
                        socket.send(json.dumps({"type": "start"}))
                    pending = message if _actionable(message) else None
            if pending is None or time.monotonic() < next_act:
                continue
            legal = [a for a in pending["legal_actions"] if a]
            moves = [a for a in legal if a != "wait"] or legal
            time.sleep(think_seconds * rng.random())
            socket.send(json.dumps({"type": "act", "agent": pending.get("agent") or 0, "action": rng.choice(moves)}))
            actions += 1
            next_act = time.monotonic() + _pace(pending)
            pending = None


def _actionable(state: dict[str, Any]) -> bool:
    """A running, unpaused state with something for the pilot to do."""
    legal = [a for a in state.get("legal_actions") or [] if a]
    return bool(legal) and state.get("status") != "finished" and not state.get("clock", {}).get("paused")


def _pace(state: dict[str, Any]) -> float:
    """Seconds from a pilot's action to its next, as a person plays: in a real-time game one clock
    unit (a kitchen step every 2 s), at least 1 s and at most 3 s; none where the game waits for
    the players (lockstep). Acting on every state, two pilots sent a kitchen 13 commands a step
    and starved its LLM teammates of the CPU."""
    clock = state.get("clock") or {}
    speed = clock.get("speed")
    if clock.get("mode") != "real_time" or not speed:
        return 0.0
    return min(max(1.0 / float(speed), 1.0), 3.0)


def _waiting(socket: ClientConnection, timeout: float) -> list[dict[str, Any]]:
    """The next message and every one queued behind it. A pilot acts on the newest state, as a
    page shows only the newest: answering each frame in turn, it fell behind a busy game (every
    seat's action sends a state) until the client's queue was full, the client stopped reading,
    missed the server's pong and closed the game ("keepalive ping timeout")."""
    messages = [json.loads(socket.recv(timeout=timeout))]
    while True:
        try:
            messages.append(json.loads(socket.recv(timeout=0)))
        except TimeoutError:
            return messages


def summary(results: list[PilotResult], seconds: float) -> dict[str, Any]:
    done = [r for r in results if r.completed]
    return {
        "participants": len(results),
        "completed": len(done),
        "failed": [{"participant": r.participant, "error": r.error} for r in results if not r.completed],
        "redirects": sorted({r.redirect_url for r in results if r.redirect_url}),
        "episodes": sum(r.episodes for r in results),
        "actions": sum(r.actions for r in results),
        "rejected": sum(r.rejected for r in results),
        "seconds": round(seconds, 2),
        "slowest_participant_seconds": round(max((r.seconds for r in results), default=0.0), 2),
    }
