"""Playing: an agent's action, a pass (the websocket's ``wait``) and chat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.db import transaction

from games import clock
from games.codec import Entry
from games.models import ClockMode, Seat, SeatKind
from games.schema import text_problem
from games.services.control import ready
from games.services.errors import GameOver, GamePaused, InvalidInput, UnknownSeat
from games.services.loop import ActionResult, _catch_up, _load, _name, _save, _seat_kinds

MAX_ACTION_LENGTH = 300


MAX_CHAT_LENGTH = 1000

# what a wait that changes nothing tells its sender (nothing is stored)
NOTHING_TO_WAIT_FOR = (
    "Nothing to wait for: a real-time game's clock runs on by itself (you may be busy; act when you are free)."
)
PASSED_ALREADY = "You have passed already: time moves on once every free agent has acted or passed."


def _check_agent(agent: Any) -> None:
    # 0.0, -0.0 and False compare equal to 0, so "is it a seat?" would pass them on to the rules.
    if not isinstance(agent, int) or isinstance(agent, bool):
        raise InvalidInput("agent must be the seat's agent number (a whole number)")


def _check_seat(ctx: Any, game_id: int, agent: int, by: Any) -> None:
    """The seat exists and, for a person (``by``), is still theirs: a seat handed to a computer
    teammate (``services.replace_seat``) takes no more from the socket its player opened before."""
    kinds = _seat_kinds(ctx)
    if not 0 <= agent < len(kinds):
        raise UnknownSeat(f"game {game_id} has no agent {agent}")
    if by is not None and kinds[agent] == SeatKind.NPC:
        raise UnknownSeat(f"a computer teammate plays agent {agent} of game {game_id} now; you no longer act for it")


def _start_or_refuse(ctx: Any, agent: int, by: Any, retry: str, refusal: Callable[[], str] | None = None) -> None:
    """A paused game takes no action, except that a person's first action in a game waiting for
    their Start (``READY``) is their Start: the clock starts with it if everyone else is ready.
    An action the rules would refuse (``refusal`` says why) starts nothing: the page says the clock
    starts with the first action, and a mistyped one ended the reading time."""
    if not ctx.game.paused:
        return
    if ctx.game.waits_for_start and by is not None and _seat_kinds(ctx)[agent] == SeatKind.HUMAN:
        if refusal is not None and (why := refusal()):
            raise GamePaused(f"{why.rstrip('.')}. The clock has not started: take another action or press Start (S)")
        others = Seat.objects.filter(game=ctx.game, kind=SeatKind.HUMAN, ready_at__isnull=True).exclude(user_id=by.pk)
        if waiting := list(others.values_list("agent", flat=True)):
            names = " and ".join(f"Player {other + 1}" for other in waiting)
            has = "has" if len(waiting) == 1 else "have"
            mine = Seat.objects.filter(game=ctx.game, kind=SeatKind.HUMAN, user_id=by.pk, ready_at__isnull=True)
            first = "press Start (S) when you have read the brief; " if mine.exists() else ""
            raise GamePaused(
                f"the clock starts once every player has pressed Start: {first}{names} {has} not yet. "
                "Your action was not taken: send it again once the clock runs"
            )
        ready(ctx, by)
        if not ctx.game.paused:
            return
    raise GamePaused(f"the game is paused; {retry}")


def apply_action(game_id: int, *, agent: int, action: str, by: Any = None, now: datetime | None = None) -> ActionResult:
    """Agent ``agent`` plays ``action`` (text in the domain's grammar; ``wait`` lets time pass).

    Callers authorise first (``games.permissions``); this checks the game can take it. The action
    and everything the rules answered (accepted or rejected) are logged before anyone hears of it.
    Raises ``InvalidInput`` for text that is not one line of text, ``UnknownSeat``,
    ``GamePaused``, and ``GameOver`` (when the game ended, possibly just now as the clock caught up).
    """
    if not isinstance(action, str) or not action.strip() or "\n" in action.strip():
        raise InvalidInput("an action is one line of text, like 'wash dish' or 'wait'")
    action = " ".join(action.split())
    if len(action) > MAX_ACTION_LENGTH:
        raise InvalidInput(f"an action is at most {MAX_ACTION_LENGTH} characters")
    if problem := text_problem(action):
        raise InvalidInput(f"the action {problem}")  # an NPC's reply too: Postgres stores no NUL
    _check_agent(agent)
    ended = False
    with transaction.atomic():
        ctx = _load(game_id, now)
        if ctx.game.is_finished:
            raise GameOver(f"game {game_id} is over ({ctx.game.outcome}); its results are on the game page")
        _check_seat(ctx, game_id, agent, by)

        def refusal() -> str:
            rejection = ctx.rules.act(ctx.state, agent, action, ctx.rules.now(ctx.state)).rejection
            return "" if rejection is None else rejection.message

        _start_or_refuse(ctx, agent, by, "your action was not taken, send it again after it resumes", refusal)
        _catch_up(ctx, before_action=True)
        rejection = None
        if ctx.rules.outcome(ctx.state).over:
            ended = True
        else:
            t = ctx.rules.now(ctx.state)
            by_name = getattr(by, "username", "") or ""
            ctx.append(Entry("action", "act", float(t), agent, {"action": action, "by": by_name}))
            transition = ctx.rules.act(ctx.state, agent, action, t)
            rejection = transition.rejection
            ctx.apply(transition)
            _catch_up(ctx)
        _save(ctx)
        result = ctx.result(rejection)
    if ended:
        raise GameOver(f"game {game_id} is over ({ctx.game.outcome}); your action came too late")
    return result


def pass_turn(game_id: int, *, agent: int, by: Any = None, now: datetime | None = None) -> ActionResult:
    """Agent ``agent`` lets time pass (the websocket's ``wait``).

    Where the agent's legal actions include ``wait`` (tasks), that action is taken. Otherwise, in
    lockstep the agent passes until time next moves (time moves once every free agent has acted
    or passed); in real time the clock runs anyway and nothing is stored.
    """
    _check_agent(agent)
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over ({game.outcome})")
        _check_seat(ctx, game_id, agent, by)
        _start_or_refuse(ctx, agent, by, "send wait again after it resumes")
        has_wait = "wait" in ctx.rules.legal_actions(ctx.state, agent)
        if not has_wait:
            note = ""
            if game.clock == ClockMode.REAL_TIME:
                note = NOTHING_TO_WAIT_FOR
            elif agent in game.passed_agents:
                note = PASSED_ALREADY
            else:
                game.passed_agents = sorted({*game.passed_agents, agent})
                time = float(ctx.rules.now(ctx.state))
                ctx.append(Entry("control", "passed", time, agent, {"message": "lets time pass", "by": _name(by)}))
                _catch_up(ctx)
            _save(ctx)
            return replace(ctx.result(), note=note)
    return apply_action(game_id, agent=agent, action="wait", by=by, now=now)


def post_chat(game_id: int, *, text: str, by: Any = None, agent: int | None = None, now: datetime | None = None) -> int:
    """A chat message (e.g. a human instructing the NPCs); logged and shown to every viewer."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("write a message first")
    text = text.strip()
    if len(text) > MAX_CHAT_LENGTH:
        raise InvalidInput(f"a chat message is at most {MAX_CHAT_LENGTH} characters")
    if problem := text_problem(text):
        raise InvalidInput(f"the message {problem}")
    if agent is not None:
        _check_agent(agent)
    with transaction.atomic():
        ctx = _load(game_id, now)
        if ctx.game.is_finished:
            raise GameOver("the game is over; chat is closed")
        if agent is not None:
            _check_seat(ctx, game_id, agent, by)
        # what came due is logged before the message, so the log stays in time order
        _catch_up(ctx)
        if not ctx.game.is_finished:
            time = clock.game_time(ctx.game, ctx.now)
            # nobody's message (a study's researcher writing to a participant) names no sender: it
            # read "agent None: Message from the researcher: ..."
            sender = _name(by) or (f"agent {agent}" if agent is not None else "")
            ctx.append(Entry("chat", "chat", time, agent, {"text": text, "from": sender}))
        _save(ctx)
    if ctx.game.is_finished:
        raise GameOver("the game is over; chat is closed")
    return ctx.game.last_seq
