"""Completed participants made straight in the database (for analysis and export tests)."""

from __future__ import annotations

from django.utils import timezone

from studies import services
from studies.models import Episode, EpisodeStatus, ParticipantStatus, Response


def completed_participant(study, external_id, *, progress_by_condition, answer_by_condition, is_pilot=False):
    """A participant who played every assigned episode with the given progress and answered every
    item with ``answer_by_condition[condition name]``."""
    participant = services.give_consent(services.join(study, external_id=external_id, is_pilot=is_pilot))
    items = list(study.items.all())
    for episode in participant.episodes.select_related("condition"):
        name = episode.condition.name
        Episode.objects.filter(pk=episode.pk).update(
            status=EpisodeStatus.DONE,
            metrics={"progress": progress_by_condition[name]},
            played_at=timezone.now(),
            surveyed_at=timezone.now(),
        )
        Response.objects.bulk_create(
            Response(episode=episode, item=item, value=answer_by_condition[name]) for item in items
        )
    participant.status = ParticipantStatus.COMPLETED
    participant.save(update_fields=["status"])
    return participant


def generated_study(researcher, *, conditions=("Alone",), **fields):
    """An open lockstep study on one generated tasks instance (8 actions, certified optimum), with
    no-NPC conditions of the given names; returns (study, the generated instance)."""
    from games.generators.family import generate
    from games.models import Scenario
    from games.scenarios import save_generated
    from studies.models import StudyStatus

    (instance,) = generate("tasks", count=1, seed=5, knobs={"actions": 8}, max_seconds=2)
    save_generated("tasks", [instance])
    study = services.create_study(
        title="On a generated instance", created_by=researcher, clock_mode="lockstep", **fields
    )
    for name in conditions:
        services.add_condition(study, name=name, npc_kind="none", npc_count=0)
    services.add_scenario(study, Scenario.objects.get(slug=instance["slug"], is_current=True))
    services.set_status(study, StudyStatus.OPEN)
    return study, instance


def play_with_the_planner(player, episode, *, waits=0):
    """Start ``episode`` and play it to the end by the planner's choices, after ``waits`` minutes of
    waiting, as ``player``; the finished game."""
    from games import selectors as game_selectors
    from games import services as game_services
    from games.engine import registry
    from games.models import Game
    from games.planners.tasks_npc import npc_policy

    episode = services.start_episode(player, episode)
    for _ in range(waits):
        game_services.apply_action(episode.game_id, agent=0, action="wait", by=player.user)
    rules = registry.get("tasks")
    while not (game := Game.objects.get(pk=episode.game_id)).is_finished:
        action = npc_policy(rules, game_selectors.current_state(game)[1], 0)
        game_services.apply_action(game.pk, agent=0, action=action, by=player.user)
    return game
