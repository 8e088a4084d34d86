"""What one viewer of a game receives: the per-viewer state message and the log entries since a
sequence number. The consumer, the REST API and the pages all build their payloads here, so a
program, a browser and a replay see the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from games import clock, selectors, state_store
from games.codec import wire_event
from games.models import Game, GameEvent

if TYPE_CHECKING:
    from games.services import ActionResult


@dataclass
class Viewer:
    """Who is looking: the agents they play (empty for a watcher) and what they may do."""

    agents: list[int]
    can_control: bool = False
    blind: bool = False  # a study participant: teammates are "Teammate k", never what plays them

    @property
    def agent(self) -> int | None:
        return self.agents[0] if self.agents else None


@dataclass
class Update:
    """Everything a viewer has not seen yet, read in one go from committed data."""

    game: Game
    seq: int
    events: list[dict[str, Any]]
    state: dict[str, Any]
    finished: dict[str, Any] | None


def load_update(game_id: int, viewer: Viewer, since: int, *, now: datetime | None = None) -> Update:
    """The entries after ``since`` and the viewer's current state (``seq`` is the last committed entry)."""
    # the game row and its log entries are committed together, so last_seq names a complete state
    game = Game.objects.select_related("scenario").get(pk=game_id)
    seq = game.last_seq
    entries = [e for e in selectors.events_since(game_id, since) if e.seq <= seq] if seq > since else []
    rules = selectors.game_rules(game)
    return _update(game, rules, state_store.state_at(rules, game, seq), seq, entries, viewer, now=now)


def update_after(result: ActionResult, game_id: int, viewer: Viewer, since: int) -> Update:
    """What ``viewer`` sees right after a change of their own, built from what that change
    committed (``result``) instead of read back, when no one else's entries came in between;
    otherwise ``load_update``. Entries committed by others after it arrive with their broadcast."""
    game, entries = result.game, result.entries
    if game is None or result.state is None or since < result.seq - len(entries):
        return load_update(game_id, viewer, since)
    unseen = [e for e in entries if e.seq > since]
    return _update(game, selectors.game_rules(game), result.state, result.seq, unseen, viewer)


def _update(
    game: Game,
    rules: Any,
    state: Any,
    seq: int,
    entries: list[GameEvent],
    viewer: Viewer,
    *,
    now: datetime | None = None,
) -> Update:
    message = state_message(game, rules, state, seq, viewer, now=now)
    finished = finished_message(game) if game.is_finished else None
    events = [event_message(e, blind=viewer.blind) for e in entries]
    return Update(game=game, seq=seq, events=events, state=message, finished=finished)


def event_message(entry: GameEvent, *, blind: bool = False) -> dict[str, Any]:
    data = entry.data
    if blind and isinstance(data, dict) and isinstance(data.get("seats"), list):
        # the "created" entry lists what plays each seat; a blinded viewer reads only who is human,
        # and not the scenarios' slugs (the researcher's names, which the pages do not show either)
        data = {key: value for key, value in data.items() if key != "scenarios"}
        data["seats"] = [{"agent": s.get("agent"), "kind": _blind_kind(s)} for s in entry.data["seats"]]
    if blind and entry.kind == "seat_replaced" and isinstance(data, dict):
        # who left and what took over are the researcher's to know
        data = {key: data[key] for key in ("message", "reason") if key in data}
    if blind and entry.category in ("action", "chat") and isinstance(data, dict) and ("by" in data or "from" in data):
        # an account's name ("p-f14f2484030fe6ce: goto storage0"): the seat's number says who
        data = {key: value for key, value in data.items() if key not in ("by", "from")}
    return wire_event(entry.seq, entry.category, entry.kind, entry.agent, entry.time, data)


def _blind_kind(seat: Any) -> str:
    return "human" if isinstance(seat, dict) and seat.get("kind") == "human" else "teammate"


def state_message(game: Game, rules: Any, state: Any, seq: int, viewer: Viewer, *, now: datetime | None = None) -> dict:
    now = now or timezone.now()
    observed = viewer.agent if viewer.agent is not None else 0
    observation = rules.observe(state, observed)
    running = not game.is_finished
    # a game waiting for its player's Start shows what they can do: their first action starts it
    open_to_act = not game.paused or game.waits_for_start
    legal = {a: rules.legal_actions(state, a) for a in viewer.agents} if running and open_to_act else {}
    return {
        "type": "state",
        "game": game.pk,
        "seq": seq,
        "domain": game.domain,
        "rules": game.rule_set_id,
        "status": game.status,
        "time": clock.game_time(game, now) if running else game.anchor_time,
        "engine_time": rules.now(state),
        "time_unit": rules.time_unit,
        "clock": {
            "mode": game.clock,
            "speed": game.speed,
            "anchor_time": game.anchor_time,
            "anchor_at": game.anchor_at.isoformat(),
            "paused": game.paused,
            "pause_reason": game.pause_reason,
            "next_deadline": rules.next_deadline(state) if running else None,
        },
        "agent": viewer.agent,
        "agents": viewer.agents,
        "legal_actions": legal.get(viewer.agent, []) if viewer.agent is not None else [],
        "legal_actions_by_agent": {str(a): actions for a, actions in legal.items()},
        "awaiting": sorted(rules.awaiting(state)) if running else [],
        "observation": {"agent": observed, "text": observation.text, "data": dict(observation.data)},
        "outcome": game.outcome,
        "metrics": rules.result(state),
        "can_control": viewer.can_control,
    }


def finished_message(game: Game) -> dict[str, Any]:
    return {"type": "finished", "game": game.pk, "seq": game.last_seq, "outcome": game.outcome, "metrics": game.result}
