"""Every state change of a game, one function each, used by every entry point (pages, the
websocket consumer, the REST API, the scheduler, the NPC runner and the study flow).

Each function locks the game row, takes the current state (``games.state_store``), asks the
rules, appends the resulting log entries (and, every so often, a snapshot) in one transaction, and
announces the change only after commit.
Time is computed from the game's stored anchor (``games.clock``); pass ``now`` to control it.

Errors a caller should show to the user are ``GameError`` subclasses with a message saying what to
do; nothing is written when one is raised (except ``GameOver``, raised after the clock caught up).

Stable signatures (other apps build on them):

- ``create_game(scenarios, seats, *, clock, speed, seed, options, disconnect_policy, created_by, now) -> Game``
- ``apply_action(game_id, *, agent, action, by=None, now=None) -> ActionResult``
- ``pass_turn(game_id, *, agent, by=None, now=None) -> ActionResult`` (the websocket's ``wait``)
- ``advance(game_id, *, now=None) -> int`` and ``advance_due(*, now=None, limit=200) -> list[int]``
- ``pause(game_id, *, reason, by=None, now=None)`` / ``resume(game_id, *, by=None, now=None)``
- ``finish(game_id, *, reason, by=None, now=None)``
- ``post_chat(game_id, *, text, by=None, agent=None, now=None) -> int``
- ``seat_connected(game_id, agent, *, now=None)`` / ``seat_disconnected(game_id, agent, *, now=None)``
- ``apply_disconnect_policy(game_id, *, now=None) -> bool``
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field
from datetime import datetime
from importlib import import_module
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import broadcast, clock, hooks, metrics, permissions, presence, state_store
from games.agents import endpoints
from games.codec import Entry, entry_from_event
from games.engine import registry
from games.engine.rules import RuleSet
from games.engine.types import Feedback, Transition
from games.models import (
    ClockMode,
    DisconnectPolicy,
    Game,
    GameEvent,
    GameSnapshot,
    GameStatus,
    Scenario,
    Seat,
    SeatKind,
)
from games.scenarios import current_scenario
from games.schema import text_problem

MAX_ACTION_LENGTH = 300
MAX_CHAT_LENGTH = 1000
MAX_SEATS = 5
SEED_MAX = 2**31 - 1
NPC_DISPATCHERS = ("llm", "planner", "random", "replay")
DEFAULT_SPEED = 0.5  # one game unit (minute) per two seconds, as SPEC section 8 suggests
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


class GameError(Exception):
    """A request the game cannot take; the message says what to do instead."""


class InvalidInput(GameError):
    pass


class GamePaused(GameError):
    pass


class GameOver(GameError):
    pass


class UnknownSeat(GameError):
    pass


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a seat plan: ``kind`` human/program/npc; ``user`` for human and program seats;
    ``dispatcher`` (llm, planner, random, replay) and ``settings`` for NPC seats."""

    kind: str
    user: Any = None
    dispatcher: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)


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


# ---------------------------------------------------------------------------------------------
# creating


def create_game(
    scenarios: Scenario | str | Sequence[Scenario | str],
    seats: Sequence[SeatSpec | Mapping[str, Any]],
    *,
    clock: str = ClockMode.LOCKSTEP,
    speed: float | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    disconnect_policy: str = DisconnectPolicy.PAUSE,
    created_by: Any = None,
    now: datetime | None = None,
) -> Game:
    """Start a game (episode) on one scenario or several played at once (a list, in order).

    ``scenarios``: Scenario versions or slugs (a slug means its current version). ``seats``: one
    per agent, as ``SeatSpec`` or dicts ``{"kind": "human"|"program"|"npc", "user": <User or
    username>, "dispatcher": "random", "settings": {...}}``; a human or program seat without a user
    goes to ``created_by``. ``clock``: real_time, lockstep or fast; ``speed``: game units per
    second in real_time. Raises ``InvalidInput`` (nothing stored) for a bad plan.
    """
    now = now or timezone.now()
    versions = _scenario_versions(scenarios)
    domain = versions[0].domain
    if any(v.domain != domain for v in versions):
        raise InvalidInput("all scenarios of one game must be from the same domain")
    try:
        rules = registry.get(domain)
    except (registry.UnknownDomain, ImportError) as error:
        raise InvalidInput(f"the {domain!r} rules are not available: {error}") from None
    if clock not in ClockMode.values:
        raise InvalidInput(f"unknown clock {clock!r}; use one of {', '.join(ClockMode.values)}")
    if disconnect_policy not in DisconnectPolicy.values:
        raise InvalidInput(f"unknown disconnect policy {disconnect_policy!r}; use pause or continue")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InvalidInput(f"seed must be a whole number from 0 to {SEED_MAX}")
    speed = DEFAULT_SPEED if speed is None else float(speed)
    if not 0 < speed <= 1000:
        raise InvalidInput("speed is game time units per second and must be between 0 and 1000")
    plan = [_seat_spec(raw, created_by) for raw in seats]
    if not 1 <= len(plan) <= MAX_SEATS:
        raise InvalidInput(f"a game needs 1 to {MAX_SEATS} seats (one human and up to four NPCs)")
    options = dict(options or {})
    definition = scenario_definition(rules, versions)
    try:
        state = rules.initial_state(definition, seed=seed, agents=len(plan), options=options)
    except (KeyError, ValueError, TypeError) as error:
        raise InvalidInput(f"the rules cannot start this scenario with these options: {error}") from None

    with transaction.atomic():
        game = Game.objects.create(
            domain=domain,
            rule_set_id=rules.id,
            scenario=versions[0],
            scenario_ids=[v.pk for v in versions],
            seed=seed,
            options=options,
            clock=clock,
            speed=speed,
            anchor_time=float(rules.now(state)),
            anchor_at=now,
            disconnect_policy=disconnect_policy,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
        Seat.objects.bulk_create(
            Seat(game=game, agent=i, kind=s.kind, user=s.user, dispatcher=s.dispatcher, settings=dict(s.settings))
            for i, s in enumerate(plan)
        )
        GameSnapshot.objects.create(game=game, seq=0, state=rules.dump_state(state))
        ctx = _Context(game=game, rules=rules, state=state, now=now, seat_kinds=[s.kind for s in plan])
        ctx.append(
            Entry(
                "control",
                "created",
                float(rules.now(state)),
                data={
                    "message": "the game starts",
                    "scenarios": [v.slug for v in versions],
                    "seats": [{"agent": i, "kind": s.kind, "dispatcher": s.dispatcher} for i, s in enumerate(plan)],
                },
            )
        )
        _catch_up(ctx)
        _save(ctx)
    return game


def scenario_definition(rules: RuleSet[Any], versions: Sequence[Scenario]) -> Mapping[str, Any]:
    """The definition the rules start from: one scenario's, or the domain's combination of several
    (a rule set that plays several at once provides ``combine(definitions)``)."""
    if len(versions) == 1:
        return versions[0].definition
    combine = getattr(rules, "combine", None) or _domain_compose(rules.domain)
    if combine is None:
        raise InvalidInput(f"the {rules.domain} rules play one scenario at a time; name just one")
    try:
        return combine([v.definition for v in versions])
    except (KeyError, ValueError, TypeError) as error:  # a domain's DefinitionError is a ValueError
        raise InvalidInput(f"these scenarios cannot be played together: {error}") from None


def _domain_compose(domain: str) -> Any:
    """A domain's ``definition.compose(definitions)``, where it has one (tasks does)."""
    try:
        module = import_module(f"games.domains.{domain}.definition")
    except ImportError:
        return None
    return getattr(module, "compose", None)


def _scenario_versions(scenarios: Scenario | str | Sequence[Scenario | str]) -> list[Scenario]:
    items = [scenarios] if isinstance(scenarios, Scenario | str) else list(scenarios)
    if not items:
        raise InvalidInput("name at least one scenario by its slug, e.g. timearena/cooking1")
    versions = []
    for item in items:
        if isinstance(item, Scenario):
            versions.append(item)
            continue
        try:
            versions.append(current_scenario(str(item).strip()))
        except Scenario.DoesNotExist as error:
            raise InvalidInput(str(error)) from None
    return versions


def _check_replay(settings: Mapping[str, Any], created_by: Any) -> None:
    source, agent = settings.get("source_game"), settings.get("source_agent", 0)
    if isinstance(agent, bool) or not isinstance(agent, int) or not 0 <= agent < MAX_SEATS:
        raise InvalidInput(f"a replay seat's source_agent is a seat number from 0 to {MAX_SEATS - 1}")
    if permissions.replay_source(created_by, source) is None:
        raise InvalidInput(
            f"a replay seat needs settings {{'source_game': <id>, 'source_agent': <n>}} naming a game you may"
            f" see; there is no game {source!r} you may see"
        )


def _seat_spec(raw: SeatSpec | Mapping[str, Any], created_by: Any) -> SeatSpec:
    if isinstance(raw, SeatSpec):
        spec = raw
    elif isinstance(raw, Mapping):
        unknown = set(raw) - {"kind", "user", "dispatcher", "settings"}
        if unknown:
            raise InvalidInput(
                f"unknown seat field(s) {', '.join(sorted(unknown))}; use kind, user, dispatcher, settings"
            )
        settings = raw.get("settings") or {}
        if not isinstance(settings, Mapping):
            raise InvalidInput("seat settings must be an object")
        spec = SeatSpec(
            kind=str(raw.get("kind", "")),
            user=raw.get("user"),
            dispatcher=str(raw.get("dispatcher") or ""),
            settings=settings,
        )
    else:
        raise InvalidInput('each seat is an object like {"kind": "program"}')
    if spec.kind not in SeatKind.values:
        raise InvalidInput(f"unknown seat kind {spec.kind!r}; use human, program or npc")
    if spec.kind == SeatKind.NPC:
        if spec.dispatcher not in NPC_DISPATCHERS:
            raise InvalidInput(f"an npc seat needs a dispatcher: one of {', '.join(NPC_DISPATCHERS)}")
        if spec.dispatcher == "llm":
            # Checked now, not at the first turn: an unknown endpoint, a disallowed model or a URL.
            nested = spec.settings.get("llm")
            try:
                endpoints.check(nested if isinstance(nested, Mapping) else spec.settings)
            except endpoints.EndpointError as error:
                raise InvalidInput(f"npc seat settings: {error}") from None
        if spec.dispatcher == "replay":
            _check_replay(spec.settings, created_by)
        return SeatSpec(kind=spec.kind, dispatcher=spec.dispatcher, settings=spec.settings)
    user = spec.user if spec.user is not None else created_by
    if isinstance(user, str):
        user = get_user_model().objects.filter(username=user).first()
        if user is None:
            raise InvalidInput(f"no user named {spec.user!r} for a {spec.kind} seat")
    if user is None or not getattr(user, "pk", None):
        raise InvalidInput(f"a {spec.kind} seat needs a user")
    return SeatSpec(kind=spec.kind, user=user)


# ---------------------------------------------------------------------------------------------
# playing


def _check_agent(agent: Any) -> None:
    # 0.0, -0.0 and False compare equal to 0, so "is it a seat?" would pass them on to the rules.
    if not isinstance(agent, int) or isinstance(agent, bool):
        raise InvalidInput("agent must be the seat's agent number (a whole number)")


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
        if ctx.game.paused:
            raise GamePaused("the game is paused; your action was not taken, send it again after it resumes")
        if not 0 <= agent < len(_seat_kinds(ctx)):
            raise UnknownSeat(f"game {game_id} has no agent {agent}")
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
        if game.paused:
            raise GamePaused("the game is paused; send wait again after it resumes")
        if not 0 <= agent < len(_seat_kinds(ctx)):
            raise UnknownSeat(f"game {game_id} has no agent {agent}")
        has_wait = "wait" in ctx.rules.legal_actions(ctx.state, agent)
        if not has_wait:
            if game.clock != ClockMode.REAL_TIME and agent not in game.passed_agents:
                game.passed_agents = sorted({*game.passed_agents, agent})
                time = float(ctx.rules.now(ctx.state))
                ctx.append(Entry("control", "passed", time, agent, {"message": "lets time pass", "by": _name(by)}))
                _catch_up(ctx)
            _save(ctx)
            return ctx.result()
    return apply_action(game_id, agent=agent, action="wait", by=by, now=now)


def advance(game_id: int, *, now: datetime | None = None) -> int:
    """Apply whatever came due by ``now`` (completions, arrivals, the time limit); returns the seq.
    Harmless to call at any time and from several processes."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        if not ctx.game.is_finished:
            _catch_up(ctx)
            _save(ctx)
        return ctx.game.last_seq


def advance_due(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """The scheduler's step: advance every running game whose ``next_deadline_at`` has come.

    Games another process holds locked are skipped (that process brings them up to date itself).
    """
    now = now or timezone.now()
    due = list(
        Game.objects.filter(status=GameStatus.RUNNING, paused=False, next_deadline_at__lte=now)
        .order_by("next_deadline_at")
        .values_list("pk", flat=True)[:limit]
    )
    advanced = []
    for game_id in due:
        with transaction.atomic():
            ctx = _load(game_id, now, skip_locked=True)
            if ctx is None or ctx.game.is_finished:
                continue
            _catch_up(ctx)
            _save(ctx)
            advanced.append(game_id)
    return advanced


def next_due_at() -> datetime | None:
    """When the scheduler next has work (it sleeps until then, or a short poll interval)."""
    return (
        Game.objects.filter(status=GameStatus.RUNNING, paused=False, next_deadline_at__isnull=False)
        .order_by("next_deadline_at")
        .values_list("next_deadline_at", flat=True)
        .first()
    )


def pause(game_id: int, *, reason: str = "researcher", by: Any = None, now: datetime | None = None) -> int:
    """Stop the clock (a researcher, or ``reason="disconnect"`` from the disconnect policy)."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; there is nothing to pause")
        if game.paused:
            return game.last_seq
        _catch_up(ctx)
        if not game.is_finished:
            game.anchor_time = clock.game_time(game, ctx.now)
            game.anchor_at = ctx.now
            game.paused = True
            game.pause_reason = reason[:20]
            message = "the game is paused" + (" until the player returns" if reason == "disconnect" else "")
            ctx.append(
                Entry(
                    "control", "paused", game.anchor_time, data={"reason": reason, "message": message, "by": _name(by)}
                )
            )
        _save(ctx)
        return game.last_seq


def resume(game_id: int, *, by: Any = None, now: datetime | None = None) -> int:
    """Restart the clock from where it stopped."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        game = ctx.game
        if game.is_finished:
            raise GameOver(f"game {game_id} is over; it cannot be resumed")
        if not game.paused:
            return game.last_seq
        game.paused = False
        game.pause_reason = ""
        game.anchor_at = ctx.now
        ctx.append(Entry("control", "resumed", game.anchor_time, data={"message": "the game resumes", "by": _name(by)}))
        _catch_up(ctx)
        _save(ctx)
        return game.last_seq


def finish(game_id: int, *, reason: str, by: Any = None, now: datetime | None = None) -> int:
    """End a game early (a researcher stops it); the metrics are those reached so far."""
    with transaction.atomic():
        ctx = _load(game_id, now)
        if ctx.game.is_finished:
            return ctx.game.last_seq
        _catch_up(ctx)
        if not ctx.game.is_finished:
            _end(ctx, reason or "ended", by=by)
        _save(ctx)
        return ctx.game.last_seq


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
        # what came due is logged before the message, so the log stays in time order
        _catch_up(ctx)
        if not ctx.game.is_finished:
            time = clock.game_time(ctx.game, ctx.now)
            ctx.append(Entry("chat", "chat", time, agent, {"text": text, "from": _name(by) or f"agent {agent}"}))
        _save(ctx)
    if ctx.game.is_finished:
        raise GameOver("the game is over; chat is closed")
    return ctx.game.last_seq


def seat_connected(game_id: int, agent: int, *, now: datetime | None = None) -> None:
    """A seat's player opened a connection; a game paused by their disconnect resumes."""
    presence.opened(game_id, agent, now)
    game = Game.objects.filter(pk=game_id).values("paused", "pause_reason", "status").first()
    returned = game and game["paused"] and game["pause_reason"] == "disconnect" and game["status"] == GameStatus.RUNNING
    if returned and not _humans_missing(game_id):
        resume(game_id, now=now)


def seat_disconnected(game_id: int, agent: int, *, now: datetime | None = None) -> None:
    """A seat's player closed a connection; see ``apply_disconnect_policy``."""
    presence.closed(game_id, agent)
    apply_disconnect_policy(game_id, now=now)


def apply_disconnect_policy(game_id: int, *, now: datetime | None = None) -> bool:
    """With the ``pause`` policy a running real-time game stops its clock once a human seat has no
    connection left (after a disconnect, or when the process holding it died); True if it paused."""
    game = Game.objects.filter(pk=game_id).values("paused", "status", "clock", "disconnect_policy").first()
    if not game or game["paused"] or game["status"] != GameStatus.RUNNING:
        return False
    pauses = game["clock"] == ClockMode.REAL_TIME and game["disconnect_policy"] == DisconnectPolicy.PAUSE
    if not pauses or not _humans_missing(game_id):
        return False
    try:
        pause(game_id, reason="disconnect", now=now)
    except GameError:
        return False
    return True


def _humans_missing(game_id: int) -> bool:
    humans = set(Seat.objects.filter(game_id=game_id, kind=SeatKind.HUMAN).values_list("agent", flat=True))
    return bool(humans - presence.connected_agents(game_id))


# ---------------------------------------------------------------------------------------------
# the loop every change goes through


def _load(game_id: int, now: datetime | None, *, skip_locked: bool = False) -> Any:
    query = Game.objects.select_for_update(skip_locked=skip_locked)
    try:
        game = query.get(pk=game_id)
    except Game.DoesNotExist:
        if skip_locked:
            return None
        raise GameError(f"there is no game {game_id}") from None
    rules = registry.get(game.rule_set_id)
    state = state_store.state_at(rules, game, game.last_seq)
    loaded = {name: copy(getattr(game, name)) for name in CHANGEABLE}
    return _Context(game=game, rules=rules, state=state, now=now or timezone.now(), loaded=loaded)


_seat_kinds_seen: dict[tuple[int, Any], list[str]] = {}  # seats never change once a game exists


def _seat_kinds(ctx: _Context) -> list[str]:
    if ctx.seat_kinds is None:
        key = (ctx.game.pk, ctx.game.created_at)
        if key not in _seat_kinds_seen:
            if len(_seat_kinds_seen) > 10_000:
                _seat_kinds_seen.clear()
            _seat_kinds_seen[key] = list(ctx.game.seats.order_by("agent").values_list("kind", flat=True))
        ctx.seat_kinds = _seat_kinds_seen[key]
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
                deadline = rules.next_deadline(ctx.state)
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


def _deciding(ctx: _Context) -> set[int]:
    """Lockstep: the agents time waits for: free, with something they could do, and not passed."""
    passed = set(ctx.game.passed_agents)
    return {a for a in ctx.rules.awaiting(ctx.state) if a not in passed and ctx.rules.legal_actions(ctx.state, a)}


def _advance(ctx: _Context, until: float) -> None:
    ctx.game.passed_agents = []  # a pass holds until time moves
    start = ctx.rules.now(ctx.state)
    ctx.append(Entry("clock", "advance", float(until), data={"from": float(start), "until": float(until)}))
    ctx.apply(ctx.rules.advance(ctx.state, until))


def _end(ctx: _Context, reason: str, *, by: Any = None) -> None:
    game = ctx.game
    game.status = GameStatus.FINISHED
    game.outcome = reason[:200]
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
    if game.is_finished or game.paused or game.clock != ClockMode.REAL_TIME:
        game.next_deadline_at = None
    else:
        deadline = ctx.rules.next_deadline(ctx.state)
        game.next_deadline_at = clock.wall_time_at(game, deadline) if deadline is not None else None
    changed = {name: getattr(game, name) for name in CHANGEABLE if ctx.loaded.get(name, _UNREAD) != getattr(game, name)}
    Game.objects.filter(pk=game.pk).update(**changed)  # only what changed: the row has JSON lists
    GameEvent.objects.bulk_create(ctx.entries)
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


def _track_progress(ctx: _Context) -> None:
    value = metrics.headline(ctx.game.domain, ctx.rules.result(ctx.state))
    points = ctx.game.progress_points
    if value is not None and (not points or points[-1][1] != value):
        points.append([float(ctx.rules.now(ctx.state)), value])


def _name(user: Any) -> str:
    return getattr(user, "username", "") or ""
