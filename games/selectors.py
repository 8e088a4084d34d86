"""Read-only queries over scenarios, games and their logs for views, consumers and commands."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, F, Max, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from games import state_store
from games.engine import registry
from games.engine.rules import RuleSet
from games.models import Game, GameEvent, GameStatus, Scenario

# The games list's extra status filter: running games whose clock stands.
PAUSED = "paused"
CLOCK_STANDS = Q(status=GameStatus.RUNNING, paused=True)
# A game paused this long is one its player has most likely left (the games list offers to stop them).
LEFT_PAUSED_AFTER = timedelta(days=1)


def current_scenarios(domain: str | None = None, search: str = "") -> QuerySet[Scenario]:
    queryset = Scenario.objects.current().order_by("domain", "slug")
    if domain:
        queryset = queryset.filter(domain=domain)
    if search:
        queryset = queryset.filter(title__icontains=search) | queryset.filter(slug__icontains=search)
    return queryset


def scenario_counts() -> dict[str, int]:
    rows = Scenario.objects.current().values("domain").annotate(n=Count("id"))
    return {row["domain"]: row["n"] for row in rows}


# ---------------------------------------------------------------------------------------------
# games


def game_rules(game: Game) -> RuleSet[Any]:
    return registry.get(game.rule_set_id)


def current_state(game: Game) -> tuple[int, Any]:
    """(seq, state) as of the last committed change, however old ``game`` is (cache, or the
    snapshot plus the log after it)."""
    from games import state_store

    seq = Game.objects.values_list("last_seq", flat=True).get(pk=game.pk)
    return seq, state_store.state_at(game_rules(game), game, seq)


def events_since(game_id: int, seq: int, *, limit: int | None = None) -> list[GameEvent]:
    queryset = GameEvent.objects.filter(game_id=game_id, seq__gt=seq).order_by("seq")
    return list(queryset[:limit] if limit else queryset)


def scenario_versions(game: Game) -> list[Scenario]:
    by_id = Scenario.objects.in_bulk(game.scenario_ids or [game.scenario_id])
    return [by_id[pk] for pk in (game.scenario_ids or [game.scenario_id])]


def rebuild_state(game: Game, *, upto_seq: int | None = None) -> Any:
    """Rebuild the state from the log alone: the initial state, then every stored action and clock
    advance re-applied in order (engine entries are what the rules answered; replaying the inputs
    reproduces them exactly because rule sets are deterministic)."""
    from games.services import scenario_definition

    rules = game_rules(game)
    definition = scenario_definition(rules, scenario_versions(game))
    agents = game.seats.count()
    state = rules.initial_state(definition, seed=game.seed, agents=agents, options=game.options)
    return state_store.replay_inputs(rules, state, game.pk, after=0, upto=upto_seq)  # the one log replay


def games_for_user(user: Any) -> QuerySet[Game]:
    """Games where ``user`` holds a seat, newest first."""
    return Game.objects.filter(seats__user=user).distinct().select_related("scenario").order_by("-created_at")


def unfinished_for_user(user: Any) -> QuerySet[Game]:
    """The running games where ``user`` holds a seat, the one played last first (its last event, or
    its creation when nothing has happened yet): the dashboard lists them all, not only the newest."""
    last = Coalesce(Max("events__created_at"), F("created_at"))
    return (
        Game.objects.filter(pk__in=Game.objects.filter(seats__user=user, status=GameStatus.RUNNING).values("pk"))
        .select_related("scenario")
        .annotate(last_activity=last)
        .order_by("-last_activity", "-pk")
    )


def left_paused(*, longer_than: timedelta = LEFT_PAUSED_AFTER, now: datetime | None = None) -> QuerySet[Game]:
    """Running games paused (by a researcher, or because their player left) for more than
    ``longer_than``: a paused game's ``anchor_at`` is when its clock stopped."""
    since = (now or timezone.now()) - longer_than
    return Game.objects.filter(CLOCK_STANDS, anchor_at__lt=since).order_by("anchor_at")


def all_games(*, status: str = "", domain: str = "", scenario: str = "") -> QuerySet[Game]:
    """Every game, newest first; ``status``: a ``GameStatus`` or ``PAUSED`` (running games whose
    clock stands); ``scenario``: a slug, the games played on any of its versions (a game of several
    tasks by its first)."""
    queryset = Game.objects.select_related("scenario", "created_by").order_by("-created_at")
    if status == PAUSED:
        queryset = queryset.filter(CLOCK_STANDS)
    elif status:
        queryset = queryset.filter(status=status)
    if domain:
        queryset = queryset.filter(domain=domain)
    if scenario:
        queryset = queryset.filter(scenario__slug=scenario)
    return queryset
