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
from studies.models import ClockMode, Episode, Participant

log = logging.getLogger(__name__)


def _game_settings(study: Any) -> dict[str, Any]:
    clock = "real_time" if study.clock_mode == ClockMode.REAL_TIME else "lockstep"
    return {
        "clock": clock,
        "speed": 1.0 / study.seconds_per_time_unit,
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
            **_game_settings(study),
        )
    except game_services.GameError as error:
        log.error("episode %s: the game could not start: %s", episode.pk, error)
        raise StudyError(f"The game could not start ({error}). Please tell the researcher.") from None
    episode.game = game
    return game


def start_tutorial(participant: Participant, scenario: Any) -> Game:
    """A solo practice game on the tutorial scenario; not analysed."""
    try:
        return game_services.create_game(
            scenario,
            [{"kind": "human", "user": participant.user}],
            created_by=participant.user,
            **_game_settings(participant.study),
        )
    except game_services.GameError as error:
        raise StudyError(f"The practice game could not start ({error}). Please tell the researcher.") from None


def stop_tutorial(game: Game) -> None:
    game_services.finish(game.pk, reason="the participant went back to the study")


def game_result(episode: Episode) -> dict[str, Any] | None:
    """The game's metrics once it is over, else None."""
    if episode.game_id is None:
        return None
    game = Game.objects.only("status", "result").get(pk=episode.game_id)
    if not game.is_finished:
        return None
    return dict(game.result or {})


def stop_game(episode: Episode) -> None:
    if episode.game_id is not None:
        try:
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
