"""What every export table is made of: documented columns, a row generator, and which participants count."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from studies.models import Episode, ParticipantStatus, Study, participant_code

CHUNK = 2000


@dataclass(frozen=True)
class Column:
    name: str
    description: str


@dataclass(frozen=True)
class Options:
    include_excluded: bool = False  # drop-outs, decliners and pilots (excluded from analysis by default)


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: Callable[[Study], list[Column]]
    rows: Callable[[Study, Options], Iterator[dict[str, Any]]]


def participants_of(study: Study, options: Options) -> Any:
    queryset = study.participants.all()
    if not options.include_excluded:
        queryset = queryset.filter(is_pilot=False, status__in=[ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED])
    return queryset


def iso(value: Any) -> str:
    return value.isoformat() if value else ""


def episodes_by_game(study: Study, options: Options) -> dict[int, tuple[str, int, str]]:
    """game id -> (participant code, episode position, condition): one small entry per episode."""
    return {
        game_id: (participant_code(participant_id), index + 1, condition)
        for game_id, participant_id, index, condition in Episode.objects.filter(
            participant__in=participants_of(study, options), game__isnull=False
        ).values_list("game_id", "participant_id", "index", "condition__name")
    }
