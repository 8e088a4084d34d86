"""Export tables about people: participants and their condition orders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.db.models import Count

from studies.exports.base import CHUNK, Column, Options, iso, participants_of
from studies.models import Episode, Study

PARTICIPANT_COLUMNS = [
    Column(
        "participant",
        "Anonymous participant code, the same in every table: the Arena's own, numbered per study in the order "
        "participants joined (P0001, P0002 ...), never the panel's id (that is external_id, even when it looks "
        "like P0001). A gap is a participant left out of this export (a pilot, a drop-out, someone who declined "
        "or was screened out: ask for excluded participants to see them). Participants who joined before codes "
        "were numbered per study keep the code they had then (numbered across all studies, with gaps).",
    ),
    Column("external_id", "Id from the study link (?pid=), e.g. the Prolific id; empty if none was given."),
    Column("status", "joined, active, completed, dropped (dropped out), declined (consent) or screened (attention)."),
    Column("is_pilot", "true for scripted or researcher pilot runs (excluded from analysis by default)."),
    Column("sequence", "Row of the balanced Latin square (within) or group (between) assigned at consent."),
    Column("condition_order", "Conditions in the order played, separated by ' > '."),
    Column("episodes_done", "Episodes with a submitted questionnaire."),
    Column("joined_at", "When the participant first agreed or declined (ISO 8601, UTC)."),
    Column("consented_at", "When consent was given (ISO 8601, UTC)."),
    Column("completed_at", "When the last questionnaire was submitted (ISO 8601, UTC)."),
    Column("dropped_at", "When the participant was marked as dropped out (ISO 8601, UTC)."),
    Column(
        "drop_reason",
        "Why: withdrew (participant), failed attention checks, no activity for N minutes (the study's inactivity "
        "limit), or the researcher's note.",
    ),
    Column("entry_params", "The recruiter's link parameters kept on entry (JSON), e.g. STUDY_ID and SESSION_ID."),
]


def participant_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    names = dict(study.conditions.values_list("index", "name"))
    done_counts = dict(
        Episode.objects.filter(participant__study=study, status="done")
        .values_list("participant_id")
        .order_by()
        .annotate(n=Count("id"))
        .values_list("participant_id", "n")
    )
    queryset = participants_of(study, options).select_related("assignment").order_by("pk")
    for p in queryset.iterator(chunk_size=CHUNK):
        assigned = getattr(p, "assignment", None)
        yield {
            "participant": p.code,
            "external_id": p.external_id,
            "status": p.status,
            "is_pilot": p.is_pilot,
            "sequence": assigned.sequence if assigned else "",
            "condition_order": " > ".join(names.get(i, str(i)) for i in assigned.condition_order) if assigned else "",
            "episodes_done": done_counts.get(p.pk, 0),
            "joined_at": iso(p.joined_at),
            "consented_at": iso(p.consented_at),
            "completed_at": iso(p.completed_at),
            "dropped_at": iso(p.dropped_at),
            "drop_reason": p.drop_reason,
            "entry_params": json.dumps(p.entry_params or {}, sort_keys=True),
        }


ASSIGNMENT_COLUMNS = [
    Column("participant", "Anonymous participant code."),
    Column("sequence", "Latin-square row (within) or group (between)."),
    Column("position", "Position in the participant's order, from 1."),
    Column("condition", "Condition name at that position."),
    Column("condition_index", "Condition number in the study design, from 1."),
]


def assignment_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    names = dict(study.conditions.values_list("index", "name"))
    queryset = participants_of(study, options).filter(assignment__isnull=False).select_related("assignment")
    for p in queryset.order_by("pk").iterator(chunk_size=CHUNK):
        for position, index in enumerate(p.assignment.condition_order, start=1):
            yield {
                "participant": p.code,
                "sequence": p.assignment.sequence,
                "position": position,
                "condition": names.get(index, ""),
                "condition_index": index + 1,
            }
