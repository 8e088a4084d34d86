"""The games' hooks the studies app provides (``games.hooks``): a finished game moves its participants
on, a seat handed to a computer teammate moves its participant on, and a study's games are blinded
for their players.

``drop_inactive`` (``games.hooks.HOUSEKEEPING``, about once a minute) marks participants gone past
their study's inactivity limit as dropped out.

``on_game_finished`` is registered in ``games.hooks.GAME_FINISHED`` so a participant's questionnaire
opens the moment their game ends (the study page also checks, in case a hook call was missed).
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from games.models import Game
from studies import services
from studies.models import Episode, EpisodeStatus, Participant
from studies.services import inactivity


def on_game_finished(game_id: int) -> None:
    """Hook (games.hooks.GAME_FINISHED): open the questionnaire of the episodes this game belongs
    to (several when participants played together); those who left it early get its final result."""
    for episode in Episode.objects.filter(game_id=game_id, status=EpisodeStatus.PLAYING):
        services.sync_episode(episode)
    result = None
    for episode in Episode.objects.filter(game_id=game_id, left_at__isnull=False, metrics={}):
        result = result if result is not None else Game.objects.only("result").get(pk=game_id).result or {}
        Episode.objects.filter(pk=episode.pk).update(metrics=dict(result))


def on_seat_replaced(game_id: int, agent: int) -> None:
    """Hook (games.hooks.SEAT_REPLACED): a participant away too long lost their seat to a computer
    teammate; their questionnaire opens (for when they come back) and the game goes on without them."""
    now = timezone.now()
    Episode.objects.filter(game_id=game_id, seat=agent, status=EpisodeStatus.PLAYING).update(
        status=EpisodeStatus.SURVEY, left_at=now, played_at=now
    )


def drop_inactive(now: datetime) -> None:
    """Hook (games.hooks.HOUSEKEEPING): participants gone past their study's inactivity limit are
    marked dropped out (``services.inactivity``)."""
    inactivity.drop_inactive_everywhere(now)


def blinded_games(game_ids: list[int]) -> set[int]:
    """Hook (games.hooks.BLINDED): a study's games (episodes and practice) are blinded for players;
    two queries for any number of games."""
    episodes = Episode.objects.filter(game_id__in=game_ids).values_list("game_id", flat=True)
    practice = Participant.objects.filter(tutorial_game_id__in=game_ids).values_list("tutorial_game_id", flat=True)
    return set(episodes) | set(practice)
