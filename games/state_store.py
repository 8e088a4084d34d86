"""Where a game's current state comes from: a per-process cache of immutable states keyed by
``(game, seq)``, else the last stored snapshot plus the log entries after it.

The log is the authority. The snapshot (``GameSnapshot``) is "the state after entry ``seq``",
rewritten in the same transaction as the entries once every ``SNAPSHOT_EVERY`` entries and when a
game ends, so a cold load replays at most that many inputs while the hot path does not encode a
whole state (itinerary states are hundreds of KB) on every action. Read states with ``state_at``,
never from the snapshot row alone: it may be a few entries behind. The cache spares the hot path (an
action, then each viewer's state) from decoding and rebuilding states. A state is
cached only after its transaction commits, so a rolled-back change is never served; a cache that
is behind (another process moved the game on) catches up by replaying the log entries after it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.db import transaction

from games.engine.compiled import UnknownScenario
from games.engine.rules import RuleSet
from games.models import GameEvent, GameSnapshot

# Entries between snapshot writes: the most a cold load replays (the engine re-applies an input in
# well under a millisecond), against encoding and writing the whole state on every change.
SNAPSHOT_EVERY = 50
CACHE_SIZE = 2_000
INPUTS = ("action", "clock")

_lock = threading.Lock()
# (game id, its creation instant) -> (seq, state); the instant tells apart two games that got the
# same id (SQLite reuses ids after a rollback, as in tests)
_cache: OrderedDict[tuple[int, Any], tuple[int, Any]] = OrderedDict()


def state_at(rules: RuleSet[Any], game: Any, seq: int) -> Any:
    """The state of ``game`` after its log entry ``seq`` (its ``last_seq`` as read with it)."""
    key, game_id = (game.pk, game.created_at), game.pk
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
    if hit is not None and hit[0] == seq:
        return hit[1]
    if hit is not None and hit[0] < seq:
        base_seq, state = hit
    else:
        base_seq, raw = GameSnapshot.objects.values_list("seq", "state").get(game_id=game_id)
        state = _load(rules, game, raw)
    if base_seq < seq:
        state = replay_inputs(rules, state, game_id, after=base_seq, upto=seq)
    _put(key, seq, state)
    return state


def _load(rules: RuleSet[Any], game: Any, raw: Any) -> Any:
    """``rules.load_state(raw)``; a dump that names its compiled scenario (the itinerary's travel
    world) in a process that has not compiled it yet gets the game's scenario compiled first."""
    try:
        return rules.load_state(raw)
    except UnknownScenario:
        from games.models import Scenario
        from games.services.creating import scenario_definition

        versions = list(Scenario.objects.filter(pk__in=game.scenario_ids or [game.scenario_id]))
        versions.sort(key=lambda version: (game.scenario_ids or [game.scenario_id]).index(version.pk))
        rules.initial_state(scenario_definition(rules, versions), seed=game.seed, options=game.options)
        return rules.load_state(raw)


def replay_inputs(rules: RuleSet[Any], state: Any, game_id: int, *, after: int, upto: int | None = None) -> Any:
    """Re-apply the stored actions and clock advances after ``after`` (the engine is deterministic,
    so this reproduces exactly what was played)."""
    entries = GameEvent.objects.filter(game_id=game_id, seq__gt=after, category__in=INPUTS).order_by("seq")
    if upto is not None:
        entries = entries.filter(seq__lte=upto)
    for category, agent, time, data in entries.values_list("category", "agent", "time", "data"):
        if category == "action":
            state = rules.act(state, agent or 0, data["action"], time).state
        else:
            state = rules.advance(state, data["until"]).state
    return state


def remember_on_commit(game: Any, seq: int, state: Any) -> None:
    key = (game.pk, game.created_at)
    transaction.on_commit(lambda: _put(key, seq, state))


def save_snapshot_if_due(
    rules: RuleSet[Any], game_id: int, seq: int, state: Any, *, since: int, force: bool = False
) -> None:
    """Rewrite the snapshot when the entries ``since`` < n <= ``seq`` crossed a multiple of
    ``SNAPSHOT_EVERY`` (``since`` is the game's last seq when the change began), or when ``force``."""
    if force or seq // SNAPSHOT_EVERY > since // SNAPSHOT_EVERY:
        GameSnapshot.objects.filter(game_id=game_id).update(seq=seq, state=rules.dump_state(state))


def forget() -> None:
    """Drop every cached state (a benchmark measuring cold loads)."""
    with _lock:
        _cache.clear()


def _put(key: tuple[int, Any], seq: int, state: Any) -> None:
    with _lock:
        current = _cache.get(key)
        if current is not None and current[0] > seq:
            return  # a newer state is already known
        _cache[key] = (seq, state)
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
