"""NPC seats in live games: the play loop's hook, and one dispatcher turn at a time per game.

``on_game_changed`` is registered in ``games.hooks.NPC_TURN`` and called after every committed
change of a game with NPC seats; it only claims the game's turn (one cheap UPDATE) and schedules
``run_turns`` off the loop. A turn reads the current state (``games.state_store``), lets the dispatcher decide (the LLM
call happens with no lock held and no transaction open), then applies each command through
``games.services.apply_action`` against the state as it is *then*: a command that is no longer
legal is rejected by the rules, logged, and fed back next turn. In lockstep an NPC that got no
command waits (so time can move on); in real time it idles and is asked again shortly.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from arena_site import background
from games import broadcast, hooks, permissions, services, state_store
from games.agents.dispatcher import Dispatcher, DispatcherError, NpcSeat, build_dispatcher
from games.agents.endpoints import EndpointError
from games.agents.extraction import display
from games.agents.llm import LlmClient, LlmConfig
from games.agents.turns import Decision, Turn
from games.codec import event_from_entry
from games.engine import registry
from games.engine.episode import LoggedAction
from games.engine.types import REJECTED
from games.models import ClockMode, Game, GameEvent, GameStatus, Seat, SeatKind
from games.npc.call_rows import call_row
from games.npc.models import LlmCall, NpcMemory

log = logging.getLogger(__name__)

MAX_TURNS_PER_RUN = 25  # then the work is handed on, so one game cannot hog a worker
RETRY_SECONDS = 2.0
BACKOFF_MAX_SECONDS = 60.0  # a failing model is asked at most once a minute
ECHO_RATIO = 0.8  # a teammate's line this like a person's line just written is an echo, not said


# -- the hook and the claim ------------------------------------------------------------------


def on_game_changed(game_id: int, seq: int) -> None:
    request_turn(game_id)


def request_turn(game_id: int, *, force: bool = False) -> None:
    if force:
        NpcMemory.objects.filter(pk=game_id).update(decided_seq=0)
    if _claim(game_id):
        background.submit("npc.turns", game_id)


def _stale_before() -> Any:
    timeout = float(getattr(settings, "LLM_TIMEOUT_SECONDS", 20.0))
    return timezone.now() - timedelta(seconds=max(60.0, 3 * timeout))


def _claim(game_id: int) -> bool:
    """Become the one process deciding for this game; otherwise ask that process to look again."""
    # Created concurrently, or the game is gone: either way the update below settles it.
    with contextlib.suppress(IntegrityError):
        NpcMemory.objects.get_or_create(game_id=game_id)
    # News first, then the claim: a runner that is finishing checks ``dirty`` after it sets
    # ``running=False``, so either it sees this news or this claim succeeds. (Marking after a failed
    # claim lost a wake-up when the runner released in between: a lockstep game then waited forever
    # for its NPC.)
    NpcMemory.objects.filter(pk=game_id).update(dirty=True)
    claimed = (
        NpcMemory.objects.filter(pk=game_id)
        .filter(Q(running=False) | Q(claimed_at__lt=_stale_before()))
        .update(running=True, dirty=False, claimed_at=timezone.now())
    )
    return bool(claimed)


def run_turns(game_id: int) -> None:
    """Decide and act until nothing new needs deciding (the caller holds the claim)."""
    for _ in range(MAX_TURNS_PER_RUN):
        try:
            acted = play_turn(game_id)
        except Exception:
            NpcMemory.objects.filter(pk=game_id).update(running=False)
            raise
        if acted:
            continue
        if NpcMemory.objects.filter(pk=game_id, dirty=True).update(dirty=False):
            continue
        NpcMemory.objects.filter(pk=game_id).update(running=False)
        # Something may have changed between the last look and the release: look once more.
        if NpcMemory.objects.filter(pk=game_id, dirty=True).exists():
            request_turn(game_id)
        return
    NpcMemory.objects.filter(pk=game_id).update(running=False)
    request_turn(game_id)


# -- one turn --------------------------------------------------------------------------------


def npc_seats(seats: Sequence[Seat]) -> list[NpcSeat]:
    return [NpcSeat(s.agent, s.dispatcher, s.settings or {}) for s in seats if s.kind == SeatKind.NPC]


def llm_client(seat_settings: Mapping[str, Any]) -> LlmClient:
    """A seat (or its study condition) may carry ``{"llm": {"endpoint": ..., "model": ...}}``: a
    configured endpoint's id, never a URL (``games.agents.endpoints``)."""
    overrides = seat_settings.get("llm") if isinstance(seat_settings.get("llm"), Mapping) else seat_settings
    try:
        client = LlmClient(config=LlmConfig.from_settings(overrides))
    except EndpointError as error:
        raise DispatcherError(str(error)) from None
    if seat_settings.get("cache") is True:
        # Asked for (a study wanting the same NPC answer to the same situation for everyone):
        # stored replies, never by default.
        from games.npc.llm_cache import CachingClient

        return CachingClient(client)  # type: ignore[return-value]
    return client


def replay_actions(seat_settings: Mapping[str, Any], viewer: Any = None) -> list[LoggedAction]:
    """The actions of the game a replay seat copies; only a game ``viewer`` (the creator of the
    game the seat plays in) may watch, checked again at each turn as the replay page would."""
    source = permissions.replay_source(viewer, seat_settings.get("source_game"))
    if source is None:
        raise DispatcherError(
            "a replay seat needs settings {'source_game': <id of a game its creator may see>, 'source_agent': <n>}"
        )
    rows = GameEvent.objects.filter(game_id=source.pk, category="action").order_by("seq")
    return [LoggedAction(int(r.agent or 0), str(r.data.get("action", "")), float(r.time)) for r in rows]


def dispatcher_for(game: Game, seats: Sequence[Seat]) -> Dispatcher:
    humans = [s.agent for s in seats if s.kind != SeatKind.NPC]
    return build_dispatcher(
        game.domain,
        npc_seats(seats),
        human_agents=humans,
        client_factory=llm_client,
        replay_actions=lambda settings_: replay_actions(settings_, viewer=game.created_by),
        seed=game.seed,
    )


def wait_action(rules: Any, state: Any, agent: int) -> str | None:
    """The domain's way of letting time pass for ``agent`` (wait, noop, stay), if it has one."""
    domain = registry.descriptor(rules.domain)
    for action in rules.legal_actions(state, agent):
        if domain.is_wait(action):
            return str(action)
    return None


def play_turn(game_id: int) -> bool:
    """One dispatcher turn if some NPC is free and something changed; True when it acted."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != GameStatus.RUNNING or game.paused:
        return False
    memory = NpcMemory.objects.get(pk=game_id)
    seats = list(game.seats.order_by("agent"))
    npcs = {s.agent for s in seats if s.kind == SeatKind.NPC}
    seq = game.last_seq
    fresh = list(GameEvent.objects.filter(game_id=game_id, seq__gt=memory.last_seq, seq__lte=seq).order_by("seq"))
    if memory.decided_seq and not _news(fresh, memory.decided_seq, npcs):
        return False
    rules = registry.get(game.rule_set_id)
    state = state_store.state_at(rules, game, seq)
    free = sorted(set(rules.awaiting(state)) & npcs)
    if not free or rules.outcome(state).over:
        NpcMemory.objects.filter(pk=game_id).update(decided_seq=seq)
        return False
    now = timezone.now()
    waiting = backoff_remaining(memory.data, now)
    if waiting > 0:
        # The model failed just now: it is not asked again before the backoff ends (a retry is
        # already scheduled for then). Lockstep NPCs wait meanwhile, so the game goes on. The
        # events and chat stay unread (last_seq is kept) for the next real decision.
        NpcMemory.objects.filter(pk=game_id).update(decided_seq=seq)
        apply_decision(game, rules, state, free, Decision(), after_seq=seq, retry_in=0)
        return False
    events = [event_from_entry(e.kind, e.time, e.agent, e.data) for e in fresh if e.category == "engine"]
    everyone = [s.agent for s in seats]
    chat = [
        in_agents_words(str(e.data.get("text", "")), e.agent, everyone, game.domain)
        for e in fresh
        if e.category == "chat" and e.agent not in npcs
    ]
    problem = ""
    # seats whose answer comes from a model take a while: their viewers are told they are deciding
    asking = [s.agent for s in seats if s.agent in free and s.kind == SeatKind.NPC and s.dispatcher == "llm"]
    if asking:
        broadcast.send_thinking(game_id, asking)
    try:
        dispatcher = dispatcher_for(game, seats)
        decision = dispatcher.decide(Turn(rules, state, free, events, chat), memory.data)
    except DispatcherError as error:
        log.warning("game %s: %s", game_id, error)
        decision, problem = Decision(), f"NPC setup problem: {error}"
    finally:
        if asking:
            broadcast.send_thinking(game_id, [])
    told = [str(e.data.get("message", "")) for e in fresh if e.category == "engine"]
    if decision.say and _echoes(decision.say, [*chat, *told]):
        # a small model said the player's instruction back word for word ("Teammate 1, make the
        # wedges"): shown as the teammate's own line it read as the NPC giving itself orders; or
        # a line of the game's it was shown ("You are doing load dishes ..., it will take 4
        # minutes"), which read as said to the person, and wrong
        decision.say = ""
    failed = [c.reply.error for c in decision.calls if not c.reply.ok]
    if failed and not any(c.reply.ok for c in decision.calls):
        problem = f"model call failed: {said_to_players(failed[0])}"
    retry_in = record_outcome(memory.data, failed=bool(problem), now=now)
    if problem and memory.data[BACKOFF_KEY]["failures"] == 1:
        # say so once per run of failures, not at every retry; a blinded (study) game never tells
        # the participant what the teammate is or runs on
        blinded = bool(hooks.blinded([game_id]))
        decision.say = "(I cannot act right now.)" if blinded else f"({problem}; trying again in {retry_in:g} s)"
    NpcMemory.objects.filter(pk=game_id).update(data=memory.data, last_seq=seq, decided_seq=seq, turns=memory.turns + 1)
    apply_decision(game, rules, state, free, decision, after_seq=seq, retry_in=retry_in if problem else None)
    return True


def said_to_players(error: str) -> str:
    """A failed model call as the game's chat says it: what went wrong, without the model server's
    address or its own words (everyone in the game reads the chat, a participant too, and the
    export keeps it); the whole error is on the game's LLM calls page and in the server's log."""
    if error.startswith("timeout after "):
        return f"the model did not answer within {error.removeprefix('timeout after ')}"
    if error.startswith("cannot reach "):
        return "the model server cannot be reached"
    if found := re.match(r"HTTP (\d{3})\b", error):
        return f"the model server refused the call (HTTP {found.group(1)})"
    return "the model's answer could not be read"


# -- backing off a failing model --------------------------------------------------------------

BACKOFF_KEY = "backoff"


def backoff_remaining(data: Mapping[str, Any], now: Any) -> float:
    """Seconds until the model may be asked again (0: now)."""
    state = data.get(BACKOFF_KEY) or {}
    until = state.get("until")
    if not until:
        return 0.0
    try:
        return max(0.0, float(until) - now.timestamp())
    except (TypeError, ValueError):
        return 0.0


def record_outcome(data: dict[str, Any], *, failed: bool, now: Any) -> float:
    """Count a failed (or successful) decision in ``data``; the wait before the next call after a
    failure doubles each time (NPC_RETRY_SECONDS, 2x, 4x ...) up to NPC_BACKOFF_MAX_SECONDS."""
    if not failed:
        data.pop(BACKOFF_KEY, None)
        return 0.0
    base = float(getattr(settings, "NPC_RETRY_SECONDS", RETRY_SECONDS)) or RETRY_SECONDS
    cap = float(getattr(settings, "NPC_BACKOFF_MAX_SECONDS", BACKOFF_MAX_SECONDS))
    failures = int((data.get(BACKOFF_KEY) or {}).get("failures", 0)) + 1
    delay = min(cap, base * 2 ** (failures - 1))
    data[BACKOFF_KEY] = {"failures": failures, "until": now.timestamp() + delay}
    return delay


TEAMMATE = re.compile(r"\bteammate\s+(\d+)\b", re.IGNORECASE)


def in_agents_words(text: str, writer: int | None, agents: Sequence[int], domain: str) -> str:
    """A person's chat line with the seats named as the model's prompt names them: the page calls
    the writer's teammates "Teammate 1, 2 ..." (the other seats in order), the prompt "Agent N"
    ("Teammate 1, wash the plate" reached the model, whose Agent 1 was the person)."""
    if writer is None:
        return text
    mates = [agent for agent in sorted(agents) if agent != writer]

    def agent_name(found: re.Match[str]) -> str:
        k = int(found.group(1))
        return f"Agent {display(domain, mates[k - 1])}" if 1 <= k <= len(mates) else found.group(0)

    return TEAMMATE.sub(agent_name, text)


def _echoes(say: str, chat: Sequence[str]) -> bool:
    """Whether the NPCs' line mostly repeats a line the people just wrote."""
    said = " ".join(say.casefold().split())
    return any(
        difflib.SequenceMatcher(None, said, " ".join(line.casefold().split())).ratio() >= ECHO_RATIO
        for line in chat
        if line.strip()
    )


def _news(entries: Sequence[GameEvent], decided_seq: int, npcs: set[int]) -> bool:
    """Did anything happen since the last decision besides the NPCs' own chat lines?"""
    return any(e.seq > decided_seq and not (e.category == "chat" and e.agent in npcs) for e in entries)


def apply_decision(
    game: Game,
    rules: Any,
    state: Any,
    free: Sequence[int],
    decision: Decision,
    *,
    after_seq: int,
    retry_in: float | None = None,
) -> None:
    """Apply the decision's commands (lockstep: idle NPCs wait); ``retry_in`` schedules the next
    look after that many seconds (0: none; None: shortly, if an NPC idles)."""
    action_seqs: list[int] = []
    refused: dict[tuple[int, str], str] = {}  # (agent, action): why the rules turned it down when played
    commanded = {agent for agent, _ in decision.actions}
    lockstep = game.clock != ClockMode.REAL_TIME
    todo = list(decision.actions)
    idle = [agent for agent in free if agent not in commanded]
    if lockstep:
        # Lockstep waits for every free agent: an NPC without a (valid) command waits this step.
        waits = [(agent, wait_action(rules, state, agent)) for agent in idle]
        todo += [(agent, action) for agent, action in waits if action is not None]
        idle = [agent for agent, action in waits if action is None]
    stale = False
    for agent, action in todo:
        if not lockstep and _gone_stale(game.pk, rules, state, agent, action):
            # a person did it while the model thought: played, the rules refuse it and a tasks
            # teammate stood "a rejected action" for a game minute; it is asked again at once
            refused[(agent, action)] = "no longer possible (the game moved on while the model thought); not played"
            stale = True
            continue
        try:
            result = services.apply_action(game.pk, agent=agent, action=action)
        except services.GameError as error:
            log.info("game %s: NPC %s could not play %r: %s", game.pk, agent, action, error)
            break
        action_seqs += [e.seq for e in result.entries if e.category == "action"]
        refused.update(((agent, action), str(e.data.get("message", ""))) for e in result.entries if e.kind == REJECTED)
        if result.finished:
            break
    _store_calls(game, decision, after_seq, action_seqs, free, float(rules.now(state)), refused)
    if decision.say:
        with contextlib.suppress(services.GameError):
            services.post_chat(game.pk, text=decision.say[:900], agent=min(free))
    retry = float(getattr(settings, "NPC_RETRY_SECONDS", RETRY_SECONDS)) if retry_in is None else retry_in
    if stale and not retry_in:
        background.submit("npc.retry", game.pk, countdown=0)
    elif retry_in or (idle and not decision.actions and retry > 0):
        # The NPC idles (real time, or a domain with no way to wait): ask again soon even if
        # nothing else happens.
        background.submit("npc.retry", game.pk, countdown=retry)


def _gone_stale(game_id: int, rules: Any, state: Any, agent: int, action: str) -> bool:
    """Whether a command that could run when the model was asked cannot any more (the game moved
    on meanwhile); one the rules never offered is left for them to refuse, as before."""
    if action not in rules.legal_actions(state, agent):
        return False
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.is_finished:
        return False
    return action not in rules.legal_actions(state_store.state_at(rules, game, game.last_seq), agent)


def _store_calls(
    game: Game,
    decision: Decision,
    after_seq: int,
    action_seqs: list[int],
    free: Sequence[int],
    game_time: float,
    refused: Mapping[tuple[int, str], str],
) -> None:
    """The decision's calls as rows; a command the rules refused when it was played (the game moved
    on while the model thought: a human did it first) is a problem of the call that gave it, as a
    command refused on reading is, so the page counts both."""
    if not decision.calls:
        return
    calls = list(decision.calls)
    late: dict[int, list[str]] = {}
    for (agent, action), why in refused.items():
        gave = next((i for i, c in enumerate(calls) if f"agent {agent}: {action}" in c.parsed), len(calls) - 1)
        late.setdefault(gave, []).append(f"agent {agent}: '{action}' refused when played: {why}")
    with transaction.atomic():
        LlmCall.objects.bulk_create(
            call_row(
                replace(call, problems=[*call.problems, *late.get(i, [])]),
                game=game,
                seats=list(free),
                game_time=game_time,
                after_seq=after_seq,
                action_seqs=action_seqs,
            )
            for i, call in enumerate(calls)
        )
