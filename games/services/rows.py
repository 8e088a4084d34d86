"""The three statements on every action's path, written out for PostgreSQL: lock the game row,
update what changed in it, append the log entries.

The ORM builds each of them afresh on every call (query compiler, model instances), which in the
load benchmark was a fifth of the server's CPU per action: locking through ``select_for_update().get``
cost about 0.8 ms of CPU more than the statement itself, ``bulk_create`` of two entries about
0.6 ms more. Here each statement's text is made once per process and the values go through each
field's own ``get_db_prep_save`` (so JSON, datetimes and nulls are stored exactly as the ORM stores
them, which ``test_rows`` checks against the ORM's rows). Other databases (SQLite, the embedded
default, which has no row locks) keep the ORM calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection, models

from games.models import Game, GameEvent

# The columns an appended entry writes (``id`` comes back from the insert).
EVENT_FIELDS = ("game", "seq", "category", "kind", "agent", "time", "created_at", "data")
# Entries per INSERT: a long lockstep jump appends thousands at once, and one statement takes at
# most 65,535 parameters (8 per entry).
BATCH = 500


def _fast() -> bool:
    return connection.vendor == "postgresql"


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    found = model._meta.get_field(name)
    assert isinstance(found, models.Field), f"{model.__name__}.{name} is not a column"
    return found


def _column(model: type[models.Model], name: str) -> str:
    return connection.ops.quote_name(str(_field(model, name).column))


@cache
def _lock_sql(skip_locked: bool) -> str:
    table = connection.ops.quote_name(Game._meta.db_table)
    return f"SELECT * FROM {table} WHERE {_column(Game, 'id')} = %s FOR UPDATE{' SKIP LOCKED' if skip_locked else ''}"


def lock_game(game_id: int, *, skip_locked: bool = False) -> Game | None:
    """The game row, locked until the transaction ends; None when there is no such game (or,
    with ``skip_locked``, when another transaction holds it)."""
    if not _fast():
        try:
            return Game.objects.select_for_update(skip_locked=skip_locked).get(pk=game_id)
        except Game.DoesNotExist:
            return None
    found = list(Game.objects.raw(_lock_sql(skip_locked), [game_id]))
    return found[0] if found else None


def update_game(game: Game, changed: dict[str, Any]) -> None:
    """Write ``changed`` (field name -> value) to the game's row."""
    if not changed:
        return
    if not _fast():
        Game.objects.filter(pk=game.pk).update(**changed)
        return
    assignments = ", ".join(f"{_column(Game, name)} = %s" for name in changed)
    values = [_field(Game, name).get_db_prep_save(value, connection) for name, value in changed.items()]
    table = connection.ops.quote_name(Game._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {assignments} WHERE {_column(Game, 'id')} = %s", [*values, game.pk])


@cache
def _insert_sql(rows: int) -> str:
    columns = ", ".join(_column(GameEvent, name) for name in EVENT_FIELDS)
    row = "(" + ", ".join(["%s"] * len(EVENT_FIELDS)) + ")"
    table = connection.ops.quote_name(GameEvent._meta.db_table)
    return f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * rows)} RETURNING {_column(GameEvent, 'id')}"


def insert_events(entries: Sequence[GameEvent]) -> None:
    """Append ``entries`` to the log; each gets its id, as ``bulk_create`` would give it."""
    if not entries:
        return
    if not _fast():
        GameEvent.objects.bulk_create(entries)
        return
    fields = [_field(GameEvent, name) for name in EVENT_FIELDS]
    with connection.cursor() as cursor:
        for first in range(0, len(entries), BATCH):
            batch = entries[first : first + BATCH]
            values = [field.get_db_prep_save(field.pre_save(e, True), connection) for e in batch for field in fields]
            cursor.execute(_insert_sql(len(batch)), values)
            for entry, (pk,) in zip(batch, cursor.fetchall(), strict=True):
                entry.pk = pk
                entry._state.adding = False
                entry._state.db = connection.alias
