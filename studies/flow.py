"""Where the study flow meets the games: creating an episode's game, reading its result, stopping it.

Games are created and ended only through ``games.services``; a study passes its seat plan, clock
and disconnect policy. What the games tell the studies app comes through ``studies.hooks``.
"""

from __future__ import annotations

import logging
from typing import Any

from games import services as game_services
from games.models import Game
from studies.errors import StudyError
from studies.models import ClockMode, Episode, EpisodeStatus, Participant

log = logging.getLogger(__name__)


def _game_settings(study: Any) -> dict[str, Any]:
    clock = "real_time" if study.clock_mode == ClockMode.REAL_TIME else "lockstep"
    return {
        "clock": clock,
        # blank: each scenario's own pace (games.speeds), as a game made on the site gets
        "speed": 1.0 / study.seconds_per_time_unit if study.seconds_per_time_unit else None,
        "disconnect_policy": study.disconnect_policy,
    }


def start_game(episode: Episode) -> Game:
    """Create the episode's game with the condition's seat plan (called inside the service's transaction)."""
    participant = episode.participant
    study = participant.study
    try:
        game = game_services.create_game(
            episode.scenario,
            episode.condition.seat_plan(human=participant.user),
            seed=episode.pk,
            created_by=participant.user,
            start_when_ready=True,
            **_game_settings(study),
        )
    except game_services.GameError as error:
        log.error("episode %s: the game could not start: %s", episode.pk, error)
        raise StudyError(f"The game could not start ({error}). Please tell the researcher.") from None
    episode.game = game
    return game


def start_shared_game(lobby: Any, episodes: list[Episode], *, empty: int) -> Game:
    """The game of a lobby: its participants (agents 0..n-1, in order of arrival), ``empty``
    backfill NPCs for the seats nobody took, then the condition's NPCs. Each participant's seat
    names its backfill, which takes over if they leave mid-game (``Study.backfill_after_seconds``)."""
    condition, study = lobby.condition, lobby.study
    plan = condition.seat_plan(humans=[e.participant.user for e in episodes], empty=empty)
    if len(episodes) > 1:
        backfill = condition.backfill_seat()
        spec = {
            "dispatcher": backfill["dispatcher"],
            "settings": backfill["settings"],
            "after_seconds": study.backfill_after_seconds,
        }
        for seat in plan[: len(episodes)]:
            seat["settings"] = {"backfill": spec}
    try:
        return game_services.create_game(
            episodes[0].scenario,
            plan,
            seed=lobby.pk,
            created_by=episodes[0].participant.user,
            start_when_ready=True,
            **_game_settings(study),
        )
    except game_services.GameError as error:
        log.error("lobby %s: the game could not start: %s", lobby.pk, error)
        raise StudyError(f"The game could not start ({error}). Please tell the researcher.") from None


def start_tutorial(participant: Participant, scenario: Any) -> Game:
    """A solo practice game on the tutorial scenario; not analysed."""
    try:
        return game_services.create_game(
            scenario,
            [{"kind": "human", "user": participant.user}],
            created_by=participant.user,
            start_when_ready=True,
            **_game_settings(participant.study),
        )
    except game_services.GameError as error:
        raise StudyError(f"The practice game could not start ({error}). Please tell the researcher.") from None


def stop_tutorial(game: Game, reason: str = "the participant went back to the study") -> None:
    try:
        game_services.finish(game.pk, reason=reason)
    except game_services.GameError:
        log.info("practice game %s was already over", game.pk)


def game_result(episode: Episode) -> dict[str, Any] | None:
    """The game's metrics once it is over, else None."""
    if episode.game_id is None:
        return None
    game = Game.objects.only("status", "result").get(pk=episode.game_id)
    if not game.is_finished:
        return None
    return dict(game.result or {})


def stop_game(episode: Episode) -> None:
    """The participant left the study: their game ends, or in a game shared with others who still
    play, their seat goes to the condition's backfill NPC."""
    if episode.game_id is None:
        return
    others = Episode.objects.filter(game_id=episode.game_id, status=EpisodeStatus.PLAYING).exclude(pk=episode.pk)
    try:
        if episode.seat is not None and others.exists():
            backfill = episode.condition.backfill_seat()
            game_services.replace_seat(
                episode.game_id,
                episode.seat,
                dispatcher=backfill["dispatcher"],
                settings=backfill["settings"],
                reason="the participant left the study",
            )
        else:
            game_services.finish(episode.game_id, reason="participant dropped out")
    except game_services.GameError:
        log.info("game %s of episode %s was already over", episode.game_id, episode.pk)


# URL names the play page may have, most specific first (the play issue owns them).
PLAY_URL_NAMES = ["games:play", "games:game", "games:detail"]


def game_url(game: Game | None, next_url: str = "") -> str:
    """Where a participant plays ``game``; ``next`` brings them back to the study when it ends."""
    from urllib.parse import urlencode

    from django.urls import NoReverseMatch, reverse

    if game is None:
        return ""
    for name in PLAY_URL_NAMES:
        try:
            url = reverse(name, args=[game.pk])
        except NoReverseMatch:
            continue
        return f"{url}?{urlencode({'next': next_url})}" if next_url else url
    return ""
