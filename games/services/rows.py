"""The statements on every action's path, written out for PostgreSQL: lock the game row, then
update what changed in it and append the log entries (one statement for the two, ``save_action``).

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
def _lock_plan(skip_locked: bool) -> tuple[str, tuple[str, ...], tuple[tuple[int, Any, tuple[Any, ...]], ...]]:
    """The locking statement (every column, in the model's order), the fields' attribute names and,
    for each column that needs one, its converters (JSON text to values, as the ORM reads it)."""
    fields = Game._meta.concrete_fields
    table = connection.ops.quote_name(Game._meta.db_table)
    columns = ", ".join(_column(Game, f.name) for f in fields)
    sql = (
        f"SELECT {columns} FROM {table} WHERE {_column(Game, 'id')} = %s FOR UPDATE"
        f"{' SKIP LOCKED' if skip_locked else ''}"
    )
    converting = []
    for position, field in enumerate(fields):
        column = field.get_col(Game._meta.db_table)
        found = (*connection.ops.get_db_converters(column), *field.get_db_converters(connection))
        if found:
            converting.append((position, column, found))
    return sql, tuple(f.attname for f in fields), tuple(converting)


def lock_game(game_id: int, *, skip_locked: bool = False) -> Game | None:
    """The game row, locked until the transaction ends; None when there is no such game (or,
    with ``skip_locked``, when another transaction holds it)."""
    if not _fast():
        try:
            return Game.objects.select_for_update(skip_locked=skip_locked).get(pk=game_id)
        except Game.DoesNotExist:
            return None
    # A plain cursor and ``from_db``: a raw queryset resolves its columns, converters and the
    # model's init order again on every call, as much CPU as the statement itself.
    sql, names, converting = _lock_plan(skip_locked)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for position, column, converters in converting:
        for convert in converters:
            values[position] = convert(values[position], column, connection)
    return Game.from_db(connection.alias, names, values)


def update_game(game: Game, changed: dict[str, Any]) -> None:
    """Write ``changed`` (field name -> value) to the game's row."""
    if not changed:
        return
    if not _fast():
        Game.objects.filter(pk=game.pk).update(**changed)
        return
    sql, values = _update(game, changed)
    with connection.cursor() as cursor:
        cursor.execute(sql, values)


def _update(game: Game, changed: dict[str, Any]) -> tuple[str, list[Any]]:
    assignments = ", ".join(f"{_column(Game, name)} = %s" for name in changed)
    values = [_field(Game, name).get_db_prep_save(value, connection) for name, value in changed.items()]
    table = connection.ops.quote_name(Game._meta.db_table)
    return f"UPDATE {table} SET {assignments} WHERE {_column(Game, 'id')} = %s", [*values, game.pk]


def save_action(game: Game, changed: dict[str, Any], entries: Sequence[GameEvent]) -> None:
    """``update_game`` and ``insert_events`` together. On PostgreSQL an action's usual pair (a few
    changed fields, a few entries) is one statement, the update a data-modifying ``WITH`` before
    the insert: one round trip to the database fewer on every action (each cost the server about
    80 µs of CPU in the driver and the system calls, and a wait for the database)."""
    if not (_fast() and changed and 0 < len(entries) <= BATCH):
        update_game(game, changed)
        insert_events(entries)
        return
    update, update_values = _update(game, changed)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH changed AS ({update}) {_insert_sql(len(entries))}", [*update_values, *_insert_values(entries)]
        )
        _take_ids(entries, cursor.fetchall())


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
    with connection.cursor() as cursor:
        for first in range(0, len(entries), BATCH):
            batch = entries[first : first + BATCH]
            cursor.execute(_insert_sql(len(batch)), _insert_values(batch))
            _take_ids(batch, cursor.fetchall())


def _insert_values(entries: Sequence[GameEvent]) -> list[Any]:
    fields = [_field(GameEvent, name) for name in EVENT_FIELDS]
    return [field.get_db_prep_save(field.pre_save(e, True), connection) for e in entries for field in fields]


def _take_ids(entries: Sequence[GameEvent], ids: Sequence[tuple[Any, ...]]) -> None:
    for entry, (pk,) in zip(entries, ids, strict=True):
        entry.pk = pk
        entry._state.adding = False
        entry._state.db = connection.alias
