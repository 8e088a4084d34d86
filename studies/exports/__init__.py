"""Study exports: every table as CSV or JSONL, streamed row by row in constant memory, plus a data
dictionary describing every column (SPEC section 10).

A table is a list of documented columns and a generator of rows. Rows come from database iterators
(``.iterator(chunk_size=...)``: server-side cursors on Postgres), so a study with millions of
events never sits in memory; the only per-study lookups kept are per episode (small). The same
generators feed the HTTP downloads and the background ZIP job (``studies.tasks``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.apps import apps

from studies.exports.base import Column, Options, Table
from studies.exports.episodes import (
    EVENT_COLUMNS,
    NPC_CALL_COLUMNS,
    episode_columns,
    episode_rows,
    event_rows,
    npc_call_rows,
)
from studies.exports.people import ASSIGNMENT_COLUMNS, PARTICIPANT_COLUMNS, assignment_rows, participant_rows
from studies.exports.survey import RESPONSE_LONG_COLUMNS, response_long_rows, response_wide_columns, response_wide_rows
from studies.exports.writers import csv_lines, jsonl_lines
from studies.models import Study

FORMATS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}

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
if apps.is_installed("games.npc"):  # the NPC call log is part of the export where NPCs exist
    TABLES["npc_calls"] = Table(
        "npc_calls",
        "Every NPC model call in the episodes' games: prompt, reply, parsed commands, latency, tokens, errors.",
        lambda s: NPC_CALL_COLUMNS,
        npc_call_rows,
    )


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
