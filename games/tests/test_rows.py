"""The hand-written statements of every action (``games.services.rows``) store and read exactly
what the ORM stores and reads. On SQLite they are the ORM calls themselves; the Postgres pass is
where the written-out SQL runs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Game, GameEvent
from games.services import rows

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def two_games(toy_scenario, participant):
    seats = [{"kind": "human", "user": participant}]
    return [services.create_game("test/toy", seats, clock="lockstep", now=T0) for _ in range(2)]


def _row(game_id: int) -> dict:
    game = Game.objects.get(pk=game_id)
    return {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields}


CHANGED = {
    "anchor_time": 12.5,
    "anchor_at": datetime(2026, 1, 1, 12, 3, 4, 500, tzinfo=UTC),
    "next_deadline_at": None,
    "paused": True,
    "pause_reason": "disconnect",
    "status": "finished",
    "outcome": "All recipes are complete — at 00:05:00.",
    "result": {"score": 0.75, "nested": {"list": [1, 2.5, None, "ü"]}, "empty": {}},
    "finished_at": datetime(2026, 1, 1, 12, 10, tzinfo=UTC),
    "last_seq": 7,
    "progress_points": [[0.0, 0], [12.5, 33.3], [30.0, 100]],
    "passed_agents": [0, 2],
}


def test_an_update_stores_what_the_orms_update_stores(two_games):
    ours, theirs = two_games
    with transaction.atomic():
        rows.update_game(ours, CHANGED)
    Game.objects.filter(pk=theirs.pk).update(**CHANGED)
    mine, reference = _row(ours.pk), _row(theirs.pk)
    for name in CHANGED:
        assert mine[name] == reference[name] == CHANGED[name], name
    made = {"id", "created_at"}  # each game's own
    assert {k: v for k, v in mine.items() if k not in made} == {k: v for k, v in reference.items() if k not in made}


def test_a_locked_game_reads_as_the_orm_reads_it(two_games):
    game = two_games[0]
    Game.objects.filter(pk=game.pk).update(**CHANGED)
    with transaction.atomic():
        locked = rows.lock_game(game.pk)
        assert locked is not None
        assert {f.attname: getattr(locked, f.attname) for f in Game._meta.concrete_fields} == _row(game.pk)
        assert rows.lock_game(game.pk + 10_000) is None
        assert rows.lock_game(game.pk + 10_000, skip_locked=True) is None


def test_appended_entries_are_stored_as_bulk_create_stores_them(two_games):
    ours, theirs = two_games

    def entries(game: Game) -> list[GameEvent]:
        return [
            GameEvent(
                game=game, seq=100 + n, category="action", kind="act", agent=agent, time=time, created_at=T0, data=data
            )
            for n, (agent, time, data) in enumerate(
                [
                    (0, 1.5, {"action": "Step(1, Porridge)", "by": "ana"}),
                    (None, 2.0, {"message": "naïve \"quotes\" and 'apostrophes'; 100% done", "list": [1, None, 2.5]}),
                    (3, 0.0, {}),
                ]
            )
        ]

    mine = entries(ours)
    with transaction.atomic():
        rows.insert_events(mine)
    GameEvent.objects.bulk_create(entries(theirs))
    assert all(entry.pk and not entry._state.adding for entry in mine)
    stored = [model_to_dict(e, exclude=["id", "game"]) for e in GameEvent.objects.filter(game=ours, seq__gte=100)]
    expected = [model_to_dict(e, exclude=["id", "game"]) for e in GameEvent.objects.filter(game=theirs, seq__gte=100)]
    assert stored == expected and len(stored) == 3
    assert sorted(e.pk for e in mine) == sorted(
        GameEvent.objects.filter(game=ours, seq__gte=100).values_list("pk", flat=True)
    )


def test_an_action_on_postgres_goes_through_the_written_out_statements(two_games, participant, monkeypatch):
    # the ORM's versions of the three statements are not used on Postgres (they are on SQLite)
    if connection.vendor != "postgresql":
        pytest.skip("the written-out statements are for PostgreSQL")
    game = two_games[0]
    monkeypatch.setattr(Game.objects, "select_for_update", lambda *a, **k: pytest.fail("ORM lock used"))
    monkeypatch.setattr(GameEvent.objects, "bulk_create", lambda *a, **k: pytest.fail("ORM insert used"))
    before = GameEvent.objects.filter(game=game).count()
    services.apply_action(game.pk, agent=0, action="sweep", by=participant, now=T0)
    assert GameEvent.objects.filter(game=game).count() > before
    assert Game.objects.get(pk=game.pk).last_seq == GameEvent.objects.filter(game=game).order_by("-seq").first().seq


def test_an_actions_update_and_entries_are_stored_as_the_orm_stores_them_in_one_statement(two_games):
    ours, theirs = two_games

    def entries(game: Game) -> list[GameEvent]:
        return [
            GameEvent(game=game, seq=8 + n, category="engine", kind=kind, agent=0, time=1.0, created_at=T0, data=data)
            for n, (kind, data) in enumerate([("started", {"message": "You start 'wash'"}), ("done", {})])
        ]

    mine = entries(ours)
    with transaction.atomic(), CaptureQueriesContext(connection) as statements:
        rows.save_action(ours, CHANGED, mine)
    Game.objects.filter(pk=theirs.pk).update(**CHANGED)
    GameEvent.objects.bulk_create(entries(theirs))
    made = {"id", "created_at"}
    assert {k: v for k, v in _row(ours.pk).items() if k not in made} == {
        k: v for k, v in _row(theirs.pk).items() if k not in made
    }
    stored = [model_to_dict(e, exclude=["id", "game"]) for e in GameEvent.objects.filter(game=ours, seq__gte=8)]
    expected = [model_to_dict(e, exclude=["id", "game"]) for e in GameEvent.objects.filter(game=theirs, seq__gte=8)]
    assert stored == expected and len(stored) == 2
    assert sorted(e.pk for e in mine) == sorted(
        GameEvent.objects.filter(game=ours, seq__gte=8).values_list("pk", flat=True)
    )
    writes = [
        q["sql"]
        for q in statements.captured_queries
        if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"))
    ]
    if connection.vendor == "postgresql":  # the update rides with the insert: one round trip
        assert len(writes) == 1 and writes[0].startswith("WITH") and "UPDATE" in writes[0] and "INSERT" in writes[0]
    else:
        assert len(writes) == 2  # SQLite: the ORM's update, then its insert


def test_a_long_jumps_thousands_of_entries_are_all_appended(two_games):
    # one INSERT takes at most 65,535 parameters: the entries go in batches
    game = two_games[0]
    many = [
        GameEvent(
            game=game, seq=1000 + n, category="clock", kind="advance", time=float(n), created_at=T0, data={"n": n}
        )
        for n in range(2 * rows.BATCH + 201)
    ]
    with transaction.atomic():
        rows.insert_events(many)
    stored = list(GameEvent.objects.filter(game=game, seq__gte=1000).order_by("seq").values_list("pk", "seq", "data"))
    assert [(seq, data) for _, seq, data in stored] == [(e.seq, e.data) for e in many]
    assert [pk for pk, _, _ in stored] == [e.pk for e in many]
