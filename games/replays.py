"""The replay page: a game's timeline, the board at any point of its log, and beside it the plan
of the domain's planner on the same scenario (where the domain has one)."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.cache import cache

from arena_site.params import whole_number
from games import presenters, selectors, timeline
from games.engine.episode import play
from games.models import Game, GameEvent, GameStatus
from games.viewer import Viewer, event_message

log = logging.getLogger(__name__)
PLAN_DECISIONS = 5_000  # a planner that has not finished by then is not shown


def replay_context(game: Game, *, at: str | None, who: Viewer | None = None) -> dict[str, Any]:
    rules = selectors.game_rules(game)
    blind = bool(who and who.blind)
    labels = presenters.names_for(game, who.agents if who else (), blind=blind)
    entries = list(GameEvent.objects.filter(game=game).order_by("seq"))
    last = entries[-1].seq if entries else 0
    wanted = whole_number(at)
    seq = wanted if wanted is not None and 0 < wanted <= last else last
    state = selectors.rebuild_state(game, upto_seq=seq)
    now = float(rules.now(state))
    limit_data = rules.observe(state, 0).data
    limit = limit_data.get("time_limit") if isinstance(limit_data.get("time_limit"), int | float) else None
    texts = presenters.timeline_texts(game.domain, dict(limit_data))  # the kitchen's places never change
    played = timeline.build(
        entries,
        labels,
        now=float(game.anchor_time),
        limit=None,
        finished=game.is_finished,
        **texts,
    )
    # a study participant sees no planner (it would name a condition and teach the optimum)
    plan = None if blind else planned(game, labels)
    span = max(played.span, plan["timeline"].span if plan else 0.0, 1.0)
    played.span = span
    if plan:
        plan["timeline"].span = span
    observation = rules.observe(state, 0)
    board_state = {
        # the board at the game's last entry reads as the ended game's page does ("still open when
        # the kitchen closed"); at any earlier entry, as it was then
        "status": game.status if seq == last else GameStatus.RUNNING,
        "time": now,
        "engine_time": now,
        "time_unit": rules.time_unit,
        "observation": {"text": observation.text},
    }
    shown = _with_consequences(entries, seq)
    log_entries = presenters.reader_lines(
        [event_message(e, blind=blind) for e in entries if e.seq <= shown], labels, who.agents if who else []
    )
    extras = presenters.board_extras(game.domain, dict(observation.data), labels, [])
    log_entries = presenters.with_times(
        presenters.log_for(game.domain, log_entries, labels, extras), presenters.log_time(game.domain, observation.data)
    )
    return {
        "game": game,
        "labels": labels,
        "blind": blind,
        "timeline": played,
        "plan": plan,
        "seq": seq,
        "last_seq": last,
        "at_time": now,
        "at_text": presenters.log_time(game.domain, observation.data)(float(now)),
        "state": board_state,
        "data": observation.data,
        "board": extras,
        "legal": set(),
        "viewer": None,
        "board_template": presenters.board_template(game.domain),
        "result_rows": presenters.metric_rows(
            game.result or rules.result(state), game.domain, blind=blind, running=not game.is_finished
        ),
        "outcome": presenters.in_peoples_words(game.domain, game.outcome, None, observation.data)
        if game.outcome
        else "",
        "log": log_entries[-presenters.LOG_LENGTH :],
        "limit": limit,
        "chart": presenters.progress_chart(
            game.progress_points,
            span,
            float(game.anchor_time),
            time_text=presenters.log_time(game.domain, observation.data),
        ),
    }


def _with_consequences(entries: list[GameEvent], seq: int) -> int:
    """The last entry the board at ``seq`` already shows: the engine's reports that follow an action
    or a clock step are its consequences (a recipe spoiled by the advance that reached its deadline),
    so the messages beside that board include them."""
    shown = seq
    for entry in entries:
        if entry.seq <= seq:
            continue
        if entry.category != "engine":
            break
        shown = entry.seq
    return shown


def planned(game: Game, labels: list[str]) -> dict[str, Any] | None:
    """The domain planner's episode on the same scenario, seed and seats (cached per game and per
    row names: a player's "You" is a researcher's "Player 1")."""
    key = plan_key(game, labels)
    cached = cache.get(key)
    if cached is not None:
        return cached or None
    result = _plan(game, labels)
    cache.set(key, result or {}, 3600)
    return result


def plan_key(game: Game, labels: list[str]) -> str:
    names = hashlib.sha1("\n".join(labels).encode()).hexdigest()[:16]
    return f"games:plan:{game.pk}:{game.rule_set_id}:{names}"


def _plan(game: Game, labels: list[str]) -> dict[str, Any] | None:
    from games.agents.planner_agent import policy_for

    policy = policy_for(game.domain)
    rules = selectors.game_rules(game)
    from games.services import scenario_definition

    definition = scenario_definition(rules, selectors.scenario_versions(game))
    agents = len(labels)
    try:
        episode = play(
            rules,
            definition,
            dict.fromkeys(range(agents), policy),
            seed=game.seed,
            options=game.options,
            max_decisions=PLAN_DECISIONS,
        )
    except Exception:
        log.exception("the %s planner failed on game %s", game.domain, game.pk)
        return None
    # the rows are the seats, named as in the game's own timeline beside it (the card says the
    # planner plays them; "Planner for Teammate 1" was cut to "Planner for Tea…"); the player's own
    # row is not "You" (a helper read the planner's row as their own)
    plan_labels = ["Planner"] if len(labels) == 1 else [_planner_row(label) for label in labels]
    return {
        "timeline": episode_timeline(rules, game.domain, episode, plan_labels),
        "result_rows": presenters.metric_rows(rules.result(episode.state), game.domain),
        "over": rules.outcome(episode.state).reason,
    }


def _planner_row(label: str) -> str:
    name = label.split(" (")[0]
    return "Your seat" if name == "You" else name


def episode_timeline(rules: Any, domain: str, episode: Any, labels: list[str]) -> timeline.Timeline:
    """A headless episode (``games.engine.episode``: its state and engine events) drawn as a finished
    game's timeline is: the planner's plan beside a replay, a benchmark episode on its page."""
    final = dict(rules.observe(episode.state, 0).data)
    return timeline.build(
        [_Entry(event) for event in episode.events],
        labels,
        now=float(rules.now(episode.state)),
        finished=True,
        **presenters.timeline_texts(domain, final),
    )


class _Entry:
    """An engine event dressed as a stored log entry, for ``timeline.build``."""

    category = "engine"

    def __init__(self, event: Any) -> None:
        self.kind, self.agent, self.time = event.kind, event.agent, float(event.time)
        self.data = {"message": event.message, "details": dict(event.data)}
