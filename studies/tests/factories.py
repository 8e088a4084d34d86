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
