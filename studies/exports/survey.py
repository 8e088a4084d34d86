"""Export tables of questionnaire answers, long (one row per answer) and wide (one row per questionnaire)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from studies.exports.base import CHUNK, Column, Options, iso, participants_of
from studies.measures import item_score
from studies.models import Response, Study, participant_code

RESPONSE_LONG_COLUMNS = [
    Column("participant", "Anonymous participant code."),
    Column("episode", "Episode the questionnaire was about, from 1."),
    Column("condition", "Condition of that episode."),
    Column("item", "Item number in the questionnaire, from 1."),
    Column("construct", "Construct key (e.g. enjoyment, trust)."),
    Column("item_text", "The statement as shown."),
    Column("reverse_scored", "true if the item counts as 6 - answer."),
    Column("answer", "The answer as given: 1 strongly disagree ... 5 strongly agree."),
    Column("score", "The answer as it counts toward its construct (reverse-scored items: 6 - answer)."),
    Column("answered_at", "When it was submitted (ISO 8601, UTC)."),
]


def response_long_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    items = {item.pk: item for item in _items(study)}
    queryset = (
        Response.objects.filter(episode__participant__in=participants_of(study, options))
        .order_by("episode__participant_id", "episode__index", "item__index")
        .values_list(
            "episode__participant__number",
            "episode__index",
            "episode__condition__name",
            "item_id",
            "value",
            "answered_at",
        )
    )
    for number, index, condition, item_id, value, answered_at in queryset.iterator(chunk_size=CHUNK):
        item = items[item_id]
        yield {
            "participant": participant_code(number),
            "episode": index + 1,
            "condition": condition,
            "item": item.index + 1,
            "construct": item.construct,
            "item_text": item.text,
            "reverse_scored": item.reverse_scored,
            "answer": value,
            "score": item_score(value, item.reverse_scored),
            "answered_at": iso(answered_at),
        }


def _items(study: Study) -> list[Any]:
    return list(study.items.order_by("index"))


def _constructs(items: list[Any]) -> list[str]:
    """The constructs scored: an attention check's answer screens and is never scored (an item of
    construct "attention" made an ``attention_score`` column)."""
    seen: list[str] = []
    for item in items:
        if item.attention_answer is None and item.construct not in seen:
            seen.append(item.construct)
    return seen


def response_wide_columns(study: Study) -> list[Column]:
    items = _items(study)
    columns = [
        Column("participant", "Anonymous participant code."),
        Column("episode", "Episode the questionnaire was about, from 1."),
        Column("condition", "Condition of that episode."),
        Column("scenario", "Scenario slug of that episode."),
    ]
    columns += [Column(f"q{i.index + 1}_{i.construct}", f"Answer (1-5) to: {i.text}") for i in items]
    columns += [
        Column(f"{c}_score", f"Mean score of the {c} items (reverse-scored items as 6 - answer).")
        for c in _constructs(items)
    ]
    return columns


def response_wide_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    """One row per answered questionnaire; the long rows arrive ordered, so one episode is held at a time."""
    items = _items(study)
    by_pk = {item.pk: item for item in items}
    constructs = _constructs(items)
    queryset = (
        Response.objects.filter(episode__participant__in=participants_of(study, options))
        .order_by("episode__participant_id", "episode__index", "item__index")
        .values_list(
            "episode_id",
            "episode__participant__number",
            "episode__index",
            "episode__condition__name",
            "episode__scenario__slug",
            "item_id",
            "value",
        )
    )
    current: dict[str, Any] | None = None
    current_episode = None
    scores: dict[str, list[int]] = {}

    def finish(row: dict[str, Any]) -> dict[str, Any]:
        for construct in constructs:
            values = scores.get(construct, [])
            row[f"{construct}_score"] = round(sum(values) / len(values), 6) if values else ""
        return row

    for episode_id, number, index, condition, scenario, item_id, value in queryset.iterator(chunk_size=CHUNK):
        if episode_id != current_episode:
            if current is not None:
                yield finish(current)
            current_episode, scores = episode_id, {}
            current = {
                "participant": participant_code(number),
                "episode": index + 1,
                "condition": condition,
                "scenario": scenario,
            }
            current.update({f"q{i.index + 1}_{i.construct}": "" for i in items})
        item = by_pk[item_id]
        assert current is not None
        current[f"q{item.index + 1}_{item.construct}"] = value
        if item.attention_answer is None:
            scores.setdefault(item.construct, []).append(item_score(value, item.reverse_scored))
    if current is not None:
        yield finish(current)
