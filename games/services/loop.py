"""The loop every change of a game goes through: lock the row, take the state, catch the clock up,
append the log entries, save (and announce after commit)."""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import broadcast, clock, hooks, metrics, state_store
from games.codec import Entry, entry_from_event
from games.engine import registry
from games.engine.rules import RuleSet
from games.engine.types import Feedback, Transition
from games.models import (
    ClockMode,
    Game,
    GameEvent,
    GameStatus,
    SeatKind,
)
from games.services import rows
from games.services.errors import GameError

# The Game fields a change may write (the rest are set once, at creation).
CHANGEABLE = (
    "anchor_time",
    "anchor_at",
    "paused",
    "pause_reason",
    "next_deadline_at",
    "status",
    "outcome",
    "result",
    "finished_at",
    "last_seq",
    "progress_points",
    "passed_agents",
)


_UNREAD = object()


# Lockstep jumps are bounded so a rule set that never frees an agent cannot spin forever.
MAX_JUMPS = 10_000


@dataclass(frozen=True)
class ActionResult:
    """What an action did: the log entries it appended (action, engine events, clock jumps),
    the rejection feedback if the rules refused it, and the game's sequence number after it.
    ``game`` and ``state`` are the game row and the state as committed (so the caller can show the
    result without reading them back)."""

    seq: int
    entries: list[GameEvent]
    rejection: Feedback | None
    finished: bool
    game: Game | None = None
    state: Any = None
    note: str = ""  # why a wait changed nothing (told to its sender; nothing is stored)


@dataclass
class _Context:
    """A locked game with its rules and current state, collecting entries to append."""

    game: Game
    rules: RuleSet[Any]
    state: Any
    now: datetime
    entries: list[GameEvent] = field(default_factory=list)
    changed: bool = False
    seat_kinds: list[str] | None = None
    loaded: dict[str, Any] = field(default_factory=dict)  # the row's changeable fields as read

    @property
    def loaded_seq(self) -> int:
        """The game's last seq when this change began (0 for a game being created)."""
        return int(self.loaded.get("last_seq", 0))

    def result(self, rejection: Feedback | None = None) -> ActionResult:
        return ActionResult(
            seq=self.game.last_seq,
            entries=self.entries,
            rejection=rejection,
            finished=self.game.is_finished,
            game=self.game,
            state=self.state,
        )

    def append(self, entry: Entry) -> GameEvent:
        self.game.last_seq += 1
        record = GameEvent(
            game=self.game,
            seq=self.game.last_seq,
            category=entry.category,
            kind=entry.kind,
            agent=entry.agent,
            time=entry.time,
            created_at=self.now,
            data=entry.data,
        )
        self.entries.append(record)
        self.changed = True
        return record

    def apply(self, transition: Transition[Any]) -> None:
        self.state = transition.state
        for event in transition.events:
            self.append(entry_from_event(event))


def _load(game_id: int, now: datetime | None, *, skip_locked: bool = False) -> Any:
    game = rows.lock_game(game_id, skip_locked=skip_locked)
    if game is None:
        if skip_locked:
            return None
        raise GameError(f"there is no game {game_id}")
    rules = registry.get(game.rule_set_id)
    state = state_store.state_at(rules, game, game.last_seq)
    loaded = {name: copy(getattr(game, name)) for name in CHANGEABLE}
    return _Context(game=game, rules=rules, state=state, now=now or timezone.now(), loaded=loaded)


_seat_kinds_seen: dict[tuple[int, Any], list[str]] = {}


def _seat_kinds(ctx: _Context) -> list[str]:
    """The kinds of the game's seats, by agent. Seats change only one way, a person's seat to an
    NPC (``services.replace_seat``, possibly in another process), and only in games with several
    people: a remembered answer holds once it has an NPC or fewer than two people."""
    if ctx.seat_kinds is None:
        key = (ctx.game.pk, ctx.game.created_at)
        kinds = _seat_kinds_seen.get(key)
        if kinds is None or (SeatKind.NPC not in kinds and kinds.count(SeatKind.HUMAN) > 1):
            if len(_seat_kinds_seen) > 10_000:
                _seat_kinds_seen.clear()
            kinds = _seat_kinds_seen[key] = list(ctx.game.seats.order_by("agent").values_list("kind", flat=True))
        ctx.seat_kinds = kinds
    return ctx.seat_kinds


def _catch_up(ctx: _Context, *, before_action: bool = False) -> None:
    """Bring the state to the game's current time.

    real_time: advance to the clock's time if something came due (or an action is about to be
    taken at that time). lockstep/fast: while no agent is free to decide, jump to the next thing
    that happens by itself. Ends the game when the rules say it is over.
    """
    rules, game = ctx.rules, ctx.game
    if game.is_finished:
        return
    if game.clock == ClockMode.REAL_TIME:
        if not game.paused:
            target = clock.engine_time(game, ctx.now)
            current = rules.now(ctx.state)
            if target > current:
                deadline = _real_time_deadline(ctx)
                if before_action or (deadline is not None and deadline <= target):
                    _advance(ctx, target)
    else:
        for _ in range(MAX_JUMPS):
            if rules.outcome(ctx.state).over or _deciding(ctx):
                break
            deadline = rules.next_deadline(ctx.state)
            if deadline is None or deadline <= rules.now(ctx.state):
                break
            _advance(ctx, deadline)
        # lockstep time is whatever the rules reached; keep the anchor on it for clients
        game.anchor_time = float(rules.now(ctx.state))
        game.anchor_at = ctx.now
    outcome = rules.outcome(ctx.state)
    if outcome.over:
        _end(ctx, outcome.reason or ("terminated" if outcome.terminated else "truncated"))


def _real_time_deadline(ctx: _Context) -> float | None:
    """When a real-time game must next move on by itself: the rules' next deadline or, earlier, the
    moment the player's options change with time alone (the descriptor's ``wakes_at``: a sight
    opens, the trip's end time comes), so that a player who only reads sees them."""
    deadline = ctx.rules.next_deadline(ctx.state)
    wakes_at = registry.descriptor(ctx.rules.domain).part("wakes_at")
    wake = wakes_at(ctx.state) if wakes_at is not None else None
    if wake is None or (deadline is not None and deadline <= wake):
        return deadline
    return float(wake)


def _deciding(ctx: _Context) -> set[int]:
    """Lockstep: the agents time waits for: free, with something they could do, and not passed."""
    passed = set(ctx.game.passed_agents)
    return {a for a in ctx.rules.awaiting(ctx.state) if a not in passed and ctx.rules.legal_actions(ctx.state, a)}


def _advance(ctx: _Context, until: float) -> None:
    ctx.game.passed_agents = []  # a pass holds until time moves
    start = ctx.rules.now(ctx.state)
    ctx.append(Entry("clock", "advance", float(until), data={"from": float(start), "until": float(until)}))
    ctx.apply(ctx.rules.advance(ctx.state, until))


OUTCOME_LENGTH = 500  # Game.outcome's max_length


def clipped(text: str, limit: int) -> str:
    """``text`` as it fits in ``limit`` characters: whole, or cut at a word with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def _end(ctx: _Context, reason: str, *, by: Any = None) -> None:
    game = ctx.game
    game.status = GameStatus.FINISHED
    game.outcome = clipped(reason, OUTCOME_LENGTH)
    game.result = ctx.rules.result(ctx.state)
    game.finished_at = ctx.now
    game.anchor_time = float(ctx.rules.now(ctx.state))
    game.anchor_at = ctx.now
    game.next_deadline_at = None
    ctx.append(
        Entry(
            "control",
            "finished",
            game.anchor_time,
            data={
                "reason": game.outcome,
                "metrics": game.result,
                "message": f"the game is over: {game.outcome}",
                "by": _name(by),
            },
        )
    )


def _save(ctx: _Context) -> None:
    if not ctx.changed:
        return  # nothing happened: leave the row (and its anchor) alone
    game = ctx.game
    _track_progress(ctx)
    _keep_clock_up(ctx)
    if game.is_finished or game.paused or game.clock != ClockMode.REAL_TIME:
        game.next_deadline_at = None
    else:
        deadline = _real_time_deadline(ctx)
        game.next_deadline_at = clock.wall_time_at(game, deadline) if deadline is not None else None
    changed = {name: getattr(game, name) for name in CHANGEABLE if ctx.loaded.get(name, _UNREAD) != getattr(game, name)}
    rows.save_action(game, changed, ctx.entries)  # only what changed: the row has JSON lists
    state_store.save_snapshot_if_due(
        ctx.rules, game.pk, game.last_seq, ctx.state, since=ctx.loaded_seq, force=game.is_finished
    )
    state_store.remember_on_commit(game, game.last_seq, ctx.state)
    broadcast.announce_on_commit(game.pk, game.last_seq)
    game_id, seq, finished = game.pk, game.last_seq, game.is_finished
    if not finished and SeatKind.NPC in _seat_kinds(ctx):
        transaction.on_commit(lambda: hooks.call(hooks.NPC_TURN, game_id, seq))
    if finished and any(e.category == "control" and e.kind == "finished" for e in ctx.entries):
        transaction.on_commit(lambda: hooks.call(hooks.GAME_FINISHED, game_id))


def _keep_clock_up(ctx: _Context) -> None:
    """Real time: the game's clock is never behind the rules' time. Where an action moves the
    rules' clock on by itself (the itinerary's traveller arrives at the end of each action, SPEC
    section 5), the clock is anchored there, so the header, the timeline's now-line and the board
    read one time, and the reading time after the action counts from where the action ended."""
    game = ctx.game
    if game.clock != ClockMode.REAL_TIME or game.is_finished:
        return
    engine = float(ctx.rules.now(ctx.state))
    if engine > clock.game_time(game, ctx.now):
        game.anchor_time = engine
        game.anchor_at = ctx.now


def _track_progress(ctx: _Context) -> None:
    value = metrics.headline(ctx.game.domain, ctx.rules.result(ctx.state))
    points = ctx.game.progress_points
    if value is not None and (not points or points[-1][1] != value):
        points.append([float(ctx.rules.now(ctx.state)), value])


def _name(user: Any) -> str:
    return getattr(user, "username", "") or ""
