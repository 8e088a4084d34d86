"""Study exports: every table as CSV or JSONL, streamed row by row in constant memory, plus a data
dictionary describing every column (SPEC section 10).

A table is a list of documented columns and a generator of rows. Rows come from database iterators
(``.iterator(chunk_size=...)``: server-side cursors on Postgres), so a study with millions of
events never sits in memory; the only per-study lookups kept are per episode (small). The same
generators feed the HTTP downloads and the background ZIP job (``studies.tasks``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from studies.measures import OBJECTIVE_MEASURES, item_score
from studies.models import Episode, ParticipantStatus, Response, Study, participant_code

CHUNK = 2000
FORMATS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


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


def _participants(study: Study, options: Options) -> Any:
    queryset = study.participants.all()
    if not options.include_excluded:
        queryset = queryset.filter(is_pilot=False, status__in=[ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED])
    return queryset


def _iso(value: Any) -> str:
    return value.isoformat() if value else ""


# --- participants -----------------------------------------------------------------------------

PARTICIPANT_COLUMNS = [
    Column("participant", "Anonymous participant code (P0001 ...), the same in every table."),
    Column("external_id", "Id from the study link (?pid=), e.g. the Prolific id; empty if none was given."),
    Column("status", "joined, active, completed, dropped (dropped out) or declined (consent)."),
    Column("is_pilot", "true for scripted or researcher pilot runs (excluded from analysis by default)."),
    Column("sequence", "Row of the balanced Latin square (within) or group (between) assigned at consent."),
    Column("condition_order", "Conditions in the order played, separated by ' > '."),
    Column("episodes_done", "Episodes with a submitted questionnaire."),
    Column("joined_at", "When the participant first agreed or declined (ISO 8601, UTC)."),
    Column("consented_at", "When consent was given (ISO 8601, UTC)."),
    Column("completed_at", "When the last questionnaire was submitted (ISO 8601, UTC)."),
    Column("dropped_at", "When the participant was marked as dropped out (ISO 8601, UTC)."),
    Column("drop_reason", "Why: withdrew (participant) or the researcher's note."),
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
    queryset = _participants(study, options).select_related("assignment").order_by("pk")
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
            "joined_at": _iso(p.joined_at),
            "consented_at": _iso(p.consented_at),
            "completed_at": _iso(p.completed_at),
            "dropped_at": _iso(p.dropped_at),
            "drop_reason": p.drop_reason,
        }


# --- assignments --------------------------------------------------------------------------------

ASSIGNMENT_COLUMNS = [
    Column("participant", "Anonymous participant code."),
    Column("sequence", "Latin-square row (within) or group (between)."),
    Column("position", "Position in the participant's order, from 1."),
    Column("condition", "Condition name at that position."),
    Column("condition_index", "Condition number in the study design, from 1."),
]


def assignment_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    names = dict(study.conditions.values_list("index", "name"))
    queryset = _participants(study, options).filter(assignment__isnull=False).select_related("assignment")
    for p in queryset.order_by("pk").iterator(chunk_size=CHUNK):
        for position, index in enumerate(p.assignment.condition_order, start=1):
            yield {
                "participant": p.code,
                "sequence": p.assignment.sequence,
                "position": position,
                "condition": names.get(index, ""),
                "condition_index": index + 1,
            }


# --- episodes -----------------------------------------------------------------------------------


def _study_domains(study: Study) -> list[str]:
    return sorted(set(study.study_scenarios.values_list("scenario__domain", flat=True)))


def _objective_columns(study: Study) -> list[tuple[str, Any]]:
    columns = []
    for domain in _study_domains(study):
        for measure in OBJECTIVE_MEASURES.get(domain, []):
            columns.append((f"{domain}_{measure.key}", measure))
    return columns


def episode_columns(study: Study) -> list[Column]:
    columns = [
        Column("participant", "Anonymous participant code."),
        Column("episode", "Position of the episode in the participant's order, from 1."),
        Column("condition", "Condition name."),
        Column("npc_kind", "Teammates in this condition: none, llm, random or planner."),
        Column("npc_count", "Number of NPC teammates."),
        Column("domain", "Game domain: tasks, recipes, kitchen or itinerary."),
        Column("scenario", "Scenario slug."),
        Column("scenario_version", "Scenario version played."),
        Column("status", "pending, playing, survey (game over, questionnaire open) or done."),
        Column("game_id", "Id of the game (links to the events table)."),
        Column("started_at", "Game start (ISO 8601, UTC)."),
        Column("played_at", "Game end (ISO 8601, UTC)."),
        Column("surveyed_at", "Questionnaire submitted (ISO 8601, UTC)."),
    ]
    for name, measure in _objective_columns(study):
        unit = f" in {measure.unit}" if measure.unit else ""
        columns.append(Column(name, f"{measure.label}{unit}, read from the game's result (empty if not applicable)."))
    columns.append(Column("metrics", "The game's full result as JSON (every metric the domain reports)."))
    return columns


def episode_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    objective = _objective_columns(study)
    queryset = (
        Episode.objects.filter(participant__in=_participants(study, options))
        .select_related("participant", "condition", "scenario")
        .order_by("participant_id", "index")
    )
    for e in queryset.iterator(chunk_size=CHUNK):
        row = {
            "participant": e.participant.code,
            "episode": e.index + 1,
            "condition": e.condition.name,
            "npc_kind": e.condition.npc_kind,
            "npc_count": e.condition.npc_count,
            "domain": e.scenario.domain,
            "scenario": e.scenario.slug,
            "scenario_version": e.scenario.version,
            "status": e.status,
            "game_id": e.game_id or "",
            "started_at": _iso(e.started_at),
            "played_at": _iso(e.played_at),
            "surveyed_at": _iso(e.surveyed_at),
        }
        for name, measure in objective:
            value = measure.read(e.metrics or {}) if name.startswith(e.scenario.domain + "_") else None
            row[name] = "" if value is None else value
        row["metrics"] = e.metrics or {}
        yield row


# --- survey answers -----------------------------------------------------------------------------

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
    queryset = (
        Response.objects.filter(episode__participant__in=_participants(study, options))
        .select_related("episode__participant", "episode__condition", "item")
        .order_by("episode__participant_id", "episode__index", "item__index")
    )
    for r in queryset.iterator(chunk_size=CHUNK):
        yield {
            "participant": r.episode.participant.code,
            "episode": r.episode.index + 1,
            "condition": r.episode.condition.name,
            "item": r.item.index + 1,
            "construct": r.item.construct,
            "item_text": r.item.text,
            "reverse_scored": r.item.reverse_scored,
            "answer": r.value,
            "score": item_score(r.value, r.item.reverse_scored),
            "answered_at": _iso(r.answered_at),
        }


def _items(study: Study) -> list[Any]:
    return list(study.items.order_by("index"))


def _constructs(items: list[Any]) -> list[str]:
    seen: list[str] = []
    for item in items:
        if item.construct not in seen:
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
        Response.objects.filter(episode__participant__in=_participants(study, options))
        .order_by("episode__participant_id", "episode__index", "item__index")
        .values_list(
            "episode_id",
            "episode__participant_id",
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

    for episode_id, participant_id, index, condition, scenario, item_id, value in queryset.iterator(chunk_size=CHUNK):
        if episode_id != current_episode:
            if current is not None:
                yield finish(current)
            current_episode, scores = episode_id, {}
            current = {
                "participant": participant_code(participant_id),
                "episode": index + 1,
                "condition": condition,
                "scenario": scenario,
            }
            current.update({f"q{i.index + 1}_{i.construct}": "" for i in items})
        item = by_pk[item_id]
        assert current is not None
        current[f"q{item.index + 1}_{item.construct}"] = value
        scores.setdefault(item.construct, []).append(item_score(value, item.reverse_scored))
    if current is not None:
        yield finish(current)


# --- event logs ---------------------------------------------------------------------------------

EVENT_COLUMNS = [
    Column("participant", "Anonymous participant code."),
    Column("episode", "Episode position, from 1."),
    Column("condition", "Condition of the episode."),
    Column("game_id", "Id of the game."),
    Column("seq", "Position of the entry in the game's log, from 1."),
    Column("category", "action (an input), clock (time advanced), engine (what the rules answered), chat or control."),
    Column("kind", "What happened (started, completed, rejected, order_arrived, paused ...)."),
    Column("agent", "Agent number (0 is the participant, 1+ NPCs); empty for events nobody caused."),
    Column("time", "Game time in the domain's unit (tasks: minutes, recipes: seconds, kitchen: steps)."),
    Column("created_at", "Wall-clock time it was stored (ISO 8601, UTC)."),
    Column("data", "Details as JSON (the action text, feedback, message ...)."),
]


def event_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    from games.models import GameEvent

    episodes = {
        game_id: (participant_code(participant_id), index + 1, condition)
        for game_id, participant_id, index, condition in Episode.objects.filter(
            participant__in=_participants(study, options), game__isnull=False
        ).values_list("game_id", "participant_id", "index", "condition__name")
    }
    queryset = (
        GameEvent.objects.filter(game_id__in=list(episodes))
        .order_by("game_id", "seq")
        .values_list("game_id", "seq", "category", "kind", "agent", "time", "created_at", "data")
    )
    for game_id, seq, category, kind, agent, time, created_at, data in queryset.iterator(chunk_size=CHUNK):
        participant, episode, condition = episodes[game_id]
        yield {
            "participant": participant,
            "episode": episode,
            "condition": condition,
            "game_id": game_id,
            "seq": seq,
            "category": category,
            "kind": kind,
            "agent": "" if agent is None else agent,
            "time": time,
            "created_at": _iso(created_at),
            "data": data,
        }


TABLES: dict[str, Table] = {
    table.name: table
    for table in [
        Table("participants", "One row per participant.", lambda s: PARTICIPANT_COLUMNS, participant_rows),
        Table(
            "assignments",
            "One row per participant and position in their condition order.",
            lambda s: ASSIGNMENT_COLUMNS,
            assignment_rows,
        ),
        Table("episodes", "One row per episode (game) with its objective metrics.", episode_columns, episode_rows),
        Table(
            "responses_long",
            "One row per questionnaire answer (long format).",
            lambda s: RESPONSE_LONG_COLUMNS,
            response_long_rows,
        ),
        Table(
            "responses_wide",
            "One row per answered questionnaire: one column per item, then construct scores.",
            response_wide_columns,
            response_wide_rows,
        ),
        Table("events", "Every entry of every episode's game log.", lambda s: EVENT_COLUMNS, event_rows),
    ]
}


def register(table: Table) -> None:
    """Add a table (the NPC call log registers itself when the npc app is installed)."""
    TABLES[table.name] = table


# --- writers ------------------------------------------------------------------------------------


class _Line:
    """A file-like object csv.writer writes one line into, so each row becomes one string."""

    def __init__(self) -> None:
        self.value = ""

    def write(self, text: str) -> None:
        self.value = text


def _cell(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def csv_lines(columns: list[Column], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    line = _Line()
    writer = csv.writer(line, lineterminator="\n")
    names = [c.name for c in columns]
    writer.writerow(names)
    yield line.value
    for row in rows:
        writer.writerow([_cell(row.get(name, "")) for name in names])
        yield line.value


def jsonl_lines(columns: list[Column], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    names = [c.name for c in columns]
    for row in rows:
        yield json.dumps({name: row.get(name, "") for name in names}, ensure_ascii=False, default=str) + "\n"


def lines(study: Study, table_name: str, fmt: str, options: Options | None = None) -> Iterator[str]:
    """The table as text lines in ``fmt`` (csv or jsonl); raises KeyError for unknown names."""
    table = TABLES[table_name]
    if fmt not in FORMATS:
        raise KeyError(fmt)
    columns = table.columns(study)
    rows = table.rows(study, options or Options())
    return csv_lines(columns, rows) if fmt == "csv" else jsonl_lines(columns, rows)


def dictionary_rows(study: Study) -> Iterator[dict[str, Any]]:
    for table in TABLES.values():
        for column in table.columns(study):
            yield {"table": table.name, "column": column.name, "description": column.description}


DICTIONARY_COLUMNS = [
    Column("table", "Export table name."),
    Column("column", "Column name."),
    Column("description", "What the column holds."),
]


def dictionary_lines(study: Study, fmt: str) -> Iterator[str]:
    rows = dictionary_rows(study)
    return csv_lines(DICTIONARY_COLUMNS, rows) if fmt == "csv" else jsonl_lines(DICTIONARY_COLUMNS, rows)
