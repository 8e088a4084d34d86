"""The websocket API at ``ws/games/<id>/`` (SPEC section 8; protocol in docs/api.md).

An entry point only: it parses frames, authorises with ``games.permissions``, calls
``games.services`` and presents ``games.viewer`` payloads. Browsers connect with ``?format=html``
and receive server-rendered fragments (htmx ws extension); programs get JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import close_old_connections, connections
from django.template.loader import render_to_string

from arena_site.params import whole_number
from games import broadcast, permissions, scheduler, schema, services, viewer
from games.codec import wire_text
from games.frame_budget import RATE, FrameBudget
from games.models import Game, SeatKind

log = logging.getLogger(__name__)


def db[T](func: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """Run ORM work off the event loop. On Postgres in a small pool of threads of its own
    (``GAME_DB_THREADS``, default 2), so one slow query does not hold up every game of the process
    while few threads contend for the interpreter's lock; on SQLite in Django's one sync thread
    (SQLite takes one writer at a time anyway, and its shared-cache test database fails fast
    instead of waiting)."""
    if connections["default"].vendor == "sqlite":
        return database_sync_to_async(func, thread_sensitive=True)  # type: ignore[no-any-return]
    return functools.partial(_in_pool, func)


async def _in_pool[T](func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func`` in the game-db pool of threads, in a copy of the caller's context, between
    two ``close_old_connections`` (as Channels' ``database_sync_to_async``, without asgiref's
    per-call bookkeeping for thread-sensitive code, which cost as much CPU as the hop itself)."""
    call = functools.partial(_with_connections_checked, func, args, kwargs)
    return await asyncio.get_running_loop().run_in_executor(_pool(), contextvars.copy_context().run, call)


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.GAME_DB_THREADS, thread_name_prefix="game-db")


def _with_connections_checked[T](func: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    close_old_connections()
    try:
        return func(*args, **kwargs)
    finally:
        close_old_connections()


class GameConsumer(AsyncWebsocketConsumer):
    game_id: int
    who: viewer.Viewer
    human_agents: list[int]
    sent_seq: int
    html: bool
    budget: FrameBudget | None = None  # a browser's (session's) socket; programs' are not limited

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.html = self._query("format") == "html"
        self.sent_seq = 0
        self.human_agents = []
        await self.accept()
        problem = await self._authorise()
        if problem:
            await self._send_error(problem, code="forbidden")
            await self.close(code=4403)
            return
        scheduler.ensure_embedded()
        broadcast.serve_from(asyncio.get_running_loop())
        # read before the seat counts as connected: nothing after this line may fail on the query
        self.sent_seq = whole_number(self._query("since"))  # type: ignore[assignment]
        await self.channel_layer.group_add(broadcast.group_name(self.game_id), self.channel_name)
        for agent in self.human_agents:
            await db(services.seat_connected)(self.game_id, agent)
        await self._push(full=True)

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "who"):
            return
        await self.channel_layer.group_discard(broadcast.group_name(self.game_id), self.channel_name)
        for agent in self.human_agents:
            with contextlib.suppress(services.GameError):
                await db(services.seat_disconnected)(self.game_id, agent)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As channels' own, minus its ``close_old_connections`` before every message: that call
        goes through the process's one shared sync thread, so every frame of every game queued
        behind it. All ORM work here runs in ``db(...)``, which closes stale connections itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    # ------------------------------------------------------------------------------------------
    # client -> server

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not hasattr(self, "who"):
            return
        if self.budget is not None and not self.budget.take():
            await self._send_error(
                f"too many messages: at most {RATE:g} a second; this one was not taken, send it again in a moment",
                code="too_fast",
            )
            return
        try:
            message = schema.frame(text_data if text_data is not None else bytes_data)
        except schema.SchemaError as error:
            await self._send_error(str(error), code="bad_frame")
            return
        kind = message["type"]
        try:
            if kind in ("act", "wait"):
                await self._act(message)
            elif kind == "chat":
                await db(services.post_chat)(
                    self.game_id, text=message.get("text", ""), by=self.scope["user"], agent=self.who.agent
                )
                await self._push()
            elif kind in ("pause", "resume"):
                if not self.who.can_control:
                    await self._send_error(
                        "only researchers (or the program that created the game) pause and resume it", code="forbidden"
                    )
                    return
                operation = services.pause if kind == "pause" else services.resume
                await db(operation)(self.game_id, by=self.scope["user"])
                await self._push()
            elif kind == "start":
                if not (self.who.agents or self.who.can_control):
                    await self._send_error("you are watching this game; its player starts it", code="forbidden")
                    return
                await db(services.start)(self.game_id, by=self.scope["user"])
                await self._push()
            elif kind == "sync":
                since = message.get("since")  # a whole number >= 0 (games.schema)
                if since is not None:
                    self.sent_seq = since
                await db(services.advance)(self.game_id)
                await self._push(full=True)
            elif kind == "ping":
                await self._send_json({"type": "pong"})
        except services.GameError as error:
            await self._send_error(str(error), code=_error_code(error))
        except Exception:
            # A bug must not cost the player their connection: log it, say so, keep the socket.
            log.exception("game %s: frame %r failed", self.game_id, kind)
            await self._send_error("the server could not handle that frame; it has been logged", code="internal")

    async def _act(self, message: dict[str, Any]) -> None:
        if not self.who.agents:
            await self._send_error("you are watching this game; you have no seat to act in", code="forbidden")
            return
        agent = message.get("agent", self.who.agent)  # a whole number, never a bool (games.schema)
        if agent not in self.who.agents:
            await self._send_error(f"you may act only for agent {_list(self.who.agents)}", code="forbidden")
            return
        action = message.get("action")
        user, since = self.scope["user"], self.sent_seq or 0

        def act_and_read() -> tuple[services.ActionResult, viewer.Update]:
            # one trip to the database thread for the action and what this viewer sees after it
            if isinstance(action, str) and message["type"] == "act":
                result = services.apply_action(self.game_id, agent=agent, action=action, by=user)
            else:
                result = services.pass_turn(self.game_id, agent=agent, by=user)
            return result, viewer.update_after(result, self.game_id, self.who, since)

        result, update = await db(act_and_read)()
        await self._deliver(update)
        if result.rejection is not None:
            await self._send_feedback(result.rejection.kind, result.rejection.message, result.seq, update)
        elif result.note:  # a wait that changed nothing says why (it went unanswered)
            await self._send_feedback("info", result.note, result.seq, update)
        elif self.html:  # an accepted action clears the last complaint
            await self.send(text_data='<div id="game-feedback" class="feedback" role="alert" hx-swap-oob="true"></div>')

    # ------------------------------------------------------------------------------------------
    # server -> client

    async def game_changed(self, event: dict[str, Any]) -> None:
        if self.sent_seq is None or event["seq"] > self.sent_seq:
            await self._push()

    async def game_thinking(self, event: dict[str, Any]) -> None:
        """Which NPC seats wait for their model; never to a blinded participant (how long a
        teammate thinks would tell an LLM from a baseline)."""
        if self.who.blind:
            return
        agents = [a for a in event.get("agents", []) if a not in self.who.agents]
        if self.html:
            await self.send(text_data=await db(_render_thinking)(self.game_id, self.who, agents))
        else:
            await self._send_json({"type": "thinking", "agents": agents})

    async def _push(self, *, full: bool = False) -> None:
        """Send the entries this connection has not sent yet, then the viewer's state."""
        update = await db(viewer.load_update)(self.game_id, self.who, self.sent_seq or 0)
        await self._deliver(update, full=full)

    async def _deliver(self, update: viewer.Update, *, full: bool = False) -> None:
        since = self.sent_seq
        if not full and since is not None and update.seq <= since:
            return
        events = update.events if since is not None else []
        self.sent_seq = update.seq
        if self.html:
            await self.send(text_data=await db(_render_update)(update, self.who, full))
            return
        for event in events:
            await self._send_json(event)
        await self._send_json(update.state)
        if update.finished and (full or any(e["kind"] == "finished" for e in events)):
            await self._send_json(update.finished)

    async def _send_json(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=wire_text(payload))

    async def _send_error(self, message: str, *, code: str) -> None:
        if self.html:
            if "Player " in message:  # "(Player 2 has not yet)": the page calls them "Teammate 1"
                message = await db(_in_page_names)(self.game_id, self.who, message)
            html = render_to_string("games/live/_feedback.html", {"kind": "error", "message": message})
            await self.send(text_data=html)
        else:
            await self._send_json({"type": "error", "code": code, "message": message})

    async def _send_feedback(self, kind: str, message: str, seq: int, update: viewer.Update) -> None:
        if self.html:
            from games.presenters import in_peoples_words

            data = (update.state.get("observation") or {}).get("data")  # what the words name (a recipe's title)
            message = in_peoples_words(update.game.domain, message, self.who.agent, data)  # programs: the rules' own
            html = render_to_string("games/live/_feedback.html", {"kind": kind, "message": message})
            await self.send(text_data=html)
        else:
            await self._send_json({"type": "feedback", "kind": kind, "message": message, "seq": seq})

    # ------------------------------------------------------------------------------------------

    def _query(self, name: str) -> str | None:
        from urllib.parse import parse_qs

        values = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get(name)
        return values[0] if values else None

    @database_sync_to_async
    def _authorise(self) -> str | None:
        if "token_user" in self.scope and self.scope["token_user"] is None:
            return "the API token is not valid; create one with manage.py create_api_token"
        user = self.scope.get("user")
        if not getattr(user, "is_authenticated", False):
            return "sign in (browsers) or send 'Authorization: Token <token>' (programs)"
        game = Game.objects.filter(pk=self.game_id).prefetch_related("seats").first()
        if game is None or not permissions.can_watch(user, game):
            return f"there is no game {self.game_id} you may see"
        seats = permissions.seats_of(user, game)
        self.who = viewer.Viewer(
            agents=[s.agent for s in seats],
            can_control=permissions.can_control(user, game),
            blind=permissions.is_blinded(user, game),
        )
        self.human_agents = [s.agent for s in seats if s.kind == SeatKind.HUMAN]
        self.budget = None if "token_user" in self.scope else FrameBudget()
        return None


def _render_update(update: viewer.Update, who: viewer.Viewer, full: bool) -> str:
    from games.presenters import live_context

    return render_to_string("games/live/_update.html", live_context(update, who, full=full))


def _in_page_names(game_id: int, who: viewer.Viewer, message: str) -> str:
    from games.presenters import names_for, people_named

    return people_named(message, names_for(Game.objects.get(pk=game_id), who.agents, blind=who.blind))


def _render_thinking(game_id: int, who: viewer.Viewer, agents: list[int]) -> str:
    from games.presenters import names_for

    names = names_for(Game.objects.get(pk=game_id), who.agents) if agents else []
    seated = [a for a in agents if 0 <= a < len(names)]
    context = {"thinking": [names[a] for a in seated], "agents": seated, "oob": True}
    return render_to_string("games/live/_thinking.html", context)


def _error_code(error: services.GameError) -> str:
    return {
        services.GamePaused: "paused",
        services.GameOver: "game_over",
        services.UnknownSeat: "forbidden",
        services.InvalidInput: "invalid",
    }.get(type(error), "error")


def _list(agents: list[int]) -> str:
    return " or ".join(str(a) for a in agents)
