"""The games' hooks the studies app provides (``games.hooks``): a finished game moves its participant
on, and a study's games are blinded for their players.

``on_game_finished`` is registered in ``games.hooks.GAME_FINISHED`` so a participant's questionnaire
opens the moment their game ends (the study page also checks, in case a hook call was missed).
"""

from __future__ import annotations

from studies import services
from studies.models import Episode, Participant


def on_game_finished(game_id: int) -> None:
    """Hook (games.hooks.GAME_FINISHED): open the questionnaire of the episode this game belongs to."""
    episode = Episode.objects.filter(game_id=game_id).first()
    if episode is not None:
        services.sync_episode(episode)


def is_blinded(game_id: int) -> bool:
    """Hook (games.hooks.BLINDED): a study's games (episodes and practice) are blinded for players."""
    return (
        Episode.objects.filter(game_id=game_id).exists()
        or Participant.objects.filter(tutorial_game_id=game_id).exists()
    )
