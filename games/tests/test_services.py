"""The game services on the toy rules: creating, acting, the computed clock, pause/resume, the log."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from games import selectors, services, state_store
from games.models import Game, GameEvent, GameSnapshot, GameStatus, Seat
from games.tests.toy import RULES

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.fixture
def lockstep_game(toy_scenario, participant):
    return services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep", now=T0)


@pytest.fixture
def realtime_game(toy_scenario, participant):
    # one game minute per two seconds
    return services.create_game(
        "test/toy", [{"kind": "human", "user": participant}], clock="real_time", speed=0.5, now=T0
    )


def kinds(game: Game) -> list[tuple[str, str]]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("category", "kind"))


def state_of(game: Game):
    return selectors.current_state(Game.objects.get(pk=game.pk))[1]


def test_create_game_stores_seats_snapshot_and_created_entry(lockstep_game, participant):
    game = Game.objects.get(pk=lockstep_game.pk)
    assert game.rule_set_id == "toy-v1" and game.status == GameStatus.RUNNING
    seat = Seat.objects.get(game=game)
    assert (seat.agent, seat.kind, seat.user) == (0, "human", participant)
    assert kinds(game) == [("control", "created")]
    assert game.snapshot.seq == 0  # the initial state; later ones every SNAPSHOT_EVERY entries


def test_snapshot_is_rewritten_every_so_often_and_a_cold_load_replays_the_rest(lockstep_game, monkeypatch):
    monkeypatch.setattr(state_store, "SNAPSHOT_EVERY", 4)
    seqs = [Game.objects.get(pk=lockstep_game.pk).last_seq]
    snapshots = []
    for action in ["fly away", "wait"] * 4:  # 2 entries, then 3-4 (the wait and the clock jump)
        services.apply_action(lockstep_game.pk, agent=0, action=action, now=at(1))
        seqs.append(Game.objects.get(pk=lockstep_game.pk).last_seq)
        snapshots.append(GameSnapshot.objects.get(game=lockstep_game).seq)
    # rewritten whenever the new entries crossed a multiple of 4, otherwise left as it was
    expected, last = [], 0
    for before, after in itertools.pairwise(seqs):
        last = after if after // 4 > before // 4 else last
        expected.append(last)
    assert snapshots == expected and len(set(snapshots)) > 2
    game = Game.objects.get(pk=lockstep_game.pk)
    state_store.forget()  # another process, or a restart: snapshot + the log after it
    cold = state_store.state_at(RULES, game, game.last_seq)
    assert RULES.dump_state(cold) == RULES.dump_state(selectors.rebuild_state(game))


def test_a_finished_game_has_its_final_snapshot(lockstep_game):
    for action in ["start laundry", "do sweep", "do dust"]:
        services.apply_action(lockstep_game.pk, agent=0, action=action, now=at(1))
    game = Game.objects.get(pk=lockstep_game.pk)
    assert game.is_finished and GameSnapshot.objects.get(game=game).seq == game.last_seq


def test_bad_seat_plans_are_refused_with_a_message(toy_scenario, participant):
    with pytest.raises(services.InvalidInput, match="dispatcher"):
        services.create_game("test/toy", [{"kind": "npc"}])
    with pytest.raises(services.InvalidInput, match="human, program or npc"):
        services.create_game("test/toy", [{"kind": "alien", "user": participant}])
    with pytest.raises(services.InvalidInput, match="no scenario named"):
        services.create_game("nope/none", [{"kind": "human", "user": participant}])
    with pytest.raises(services.InvalidInput, match="1 to 5 seats"):
        services.create_game("test/toy", [])
    with pytest.raises(services.InvalidInput, match="needs a user"):
        services.create_game("test/toy", [{"kind": "program"}])
    # one dispatcher asks one model for every llm seat: a second seat's own settings were dropped
    human = {"kind": "human", "user": participant}
    two_models = [{"kind": "npc", "dispatcher": "llm", "settings": {"temperature": t}} for t in (0.1, 0.9)]
    with pytest.raises(services.InvalidInput, match="llm seats share one dispatcher"):
        services.create_game("test/toy", [human, *two_models])
    assert Game.objects.count() == 0
    same = [{"kind": "npc", "dispatcher": "llm", "settings": {"temperature": 0.1}}] * 2
    assert services.create_game("test/toy", [human, *same], clock="lockstep").seats.count() == 3


def test_lockstep_jumps_time_when_nobody_is_free(lockstep_game):
    result = services.apply_action(lockstep_game.pk, agent=0, action="do sweep", now=at(1))
    assert result.rejection is None
    state = state_of(lockstep_game)
    # sweeping occupied the only agent for 2 minutes, so time jumped to 2
    assert RULES.now(state) == 2 and "sweep" in state.done
    assert kinds(lockstep_game)[-3:] == [("engine", "started"), ("clock", "advance"), ("engine", "completed")]


def test_rejected_actions_are_logged_with_feedback(lockstep_game):
    result = services.apply_action(lockstep_game.pk, agent=0, action="fly away", now=at(1))
    assert result.rejection is not None and result.rejection.kind == "invalid_action"
    assert "try one of" in result.rejection.message
    assert kinds(lockstep_game)[-2:] == [("action", "act"), ("engine", "rejected")]


@pytest.mark.parametrize("bad", ["", "   ", "two\nlines", "x" * 400, None, 5])
def test_malformed_actions_change_nothing(lockstep_game, bad):
    before = GameEvent.objects.filter(game=lockstep_game).count()
    with pytest.raises(services.InvalidInput):
        services.apply_action(lockstep_game.pk, agent=0, action=bad, now=at(1))
    assert GameEvent.objects.filter(game=lockstep_game).count() == before


def test_unknown_agent_is_refused(lockstep_game):
    with pytest.raises(services.UnknownSeat):
        services.apply_action(lockstep_game.pk, agent=3, action="wait", now=at(1))


def test_playing_to_the_end_stores_metrics(lockstep_game):
    for action in ["start laundry", "do sweep", "do dust"]:
        services.apply_action(lockstep_game.pk, agent=0, action=action, now=at(1))
    game = Game.objects.get(pk=lockstep_game.pk)
    assert game.status == GameStatus.FINISHED
    assert game.result == {"progress": 100.0, "completion_time": 4}
    assert kinds(game)[-1] == ("control", "finished")
    with pytest.raises(services.GameOver):
        services.apply_action(game.pk, agent=0, action="wait", now=at(2))


def test_real_time_clock_is_computed_from_the_anchor(realtime_game):
    services.apply_action(realtime_game.pk, agent=0, action="start laundry", now=at(0))
    game = Game.objects.get(pk=realtime_game.pk)
    # laundry keeps the agent one minute (t=1 -> 2 s) and completes at t=3 (6 s)
    assert game.next_deadline_at == at(2)
    assert services.advance_due(now=at(1.9)) == []
    assert services.advance_due(now=at(2.0)) == [game.pk]
    assert Game.objects.get(pk=game.pk).next_deadline_at == at(6)
    services.advance_due(now=at(6.5))
    state = state_of(game)
    assert "laundry" in state.done and RULES.now(state) == 3


def test_actions_in_real_time_happen_at_the_clock_time(realtime_game):
    services.apply_action(realtime_game.pk, agent=0, action="do dust", now=at(9))  # t = 4.5 -> minute 4
    started = GameEvent.objects.get(game=realtime_game, kind="started")
    assert started.time == 4


def test_pause_stops_the_clock_and_resume_restarts_it(realtime_game):
    services.pause(realtime_game.pk, reason="researcher", now=at(4))  # t = 2
    game = Game.objects.get(pk=realtime_game.pk)
    assert game.paused and game.anchor_time == 2 and game.next_deadline_at is None
    with pytest.raises(services.GamePaused):
        services.apply_action(game.pk, agent=0, action="wait", now=at(100))
    services.resume(game.pk, now=at(100))
    services.apply_action(game.pk, agent=0, action="do dust", now=at(102))  # 2 + 1 = 3
    assert GameEvent.objects.get(game=game, kind="started").time == 3


def test_time_limit_ends_a_real_time_game_through_the_scheduler(realtime_game):
    services.advance_due(now=at(41))  # the toy's limit is 20 minutes = 40 s
    game = Game.objects.get(pk=realtime_game.pk)
    assert game.status == GameStatus.FINISHED and game.outcome == "time limit"
    assert game.result["progress"] == 0


def test_state_rebuilds_from_the_log(realtime_game):
    services.apply_action(realtime_game.pk, agent=0, action="start laundry", now=at(0))
    services.apply_action(realtime_game.pk, agent=0, action="do nothing", now=at(2.5))
    services.apply_action(realtime_game.pk, agent=0, action="do sweep", now=at(3))
    services.advance_due(now=at(7))
    game = Game.objects.get(pk=realtime_game.pk)
    rebuilt = selectors.rebuild_state(game)
    assert RULES.dump_state(rebuilt) == RULES.dump_state(state_of(game))


def test_disconnect_policy_pauses_real_time_until_the_human_returns(realtime_game):
    services.seat_connected(realtime_game.pk, 0, now=at(0))
    services.seat_disconnected(realtime_game.pk, 0, now=at(4))
    game = Game.objects.get(pk=realtime_game.pk)
    assert game.paused and game.pause_reason == "disconnect"
    services.seat_connected(realtime_game.pk, 0, now=at(60))
    game = Game.objects.get(pk=realtime_game.pk)
    assert not game.paused and game.anchor_time == 2 and game.anchor_at == at(60)


def test_continue_policy_keeps_running(toy_scenario, participant):
    game = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}], clock="real_time", disconnect_policy="continue", now=T0
    )
    services.seat_connected(game.pk, 0, now=at(0))
    services.seat_disconnected(game.pk, 0, now=at(4))
    assert not Game.objects.get(pk=game.pk).paused


def test_chat_is_logged(lockstep_game, participant):
    services.post_chat(lockstep_game.pk, text="  please do the laundry ", by=participant, agent=0, now=at(1))
    chat = GameEvent.objects.get(game=lockstep_game, category="chat")
    assert chat.data == {"text": "please do the laundry", "from": "par"}
    with pytest.raises(services.InvalidInput):
        services.post_chat(lockstep_game.pk, text="   ", by=participant)


def test_npc_hook_is_called_after_commit(toy_scenario, participant, monkeypatch, django_capture_on_commit_callbacks):
    calls = []
    monkeypatch.setattr(services.hooks, "NPC_TURN", ["games.tests.test_services:_record"])
    monkeypatch.setattr(services.hooks, "_resolved", {"games.tests.test_services:_record": _Recorder(calls)})
    with django_capture_on_commit_callbacks(execute=True):
        game = services.create_game(
            "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}], now=T0
        )
    assert calls == [(game.pk, 1)]


def test_finish_stores_partial_metrics(lockstep_game, researcher):
    services.apply_action(lockstep_game.pk, agent=0, action="do sweep", now=at(1))
    services.finish(lockstep_game.pk, reason="stopped by a researcher", by=researcher, now=at(2))
    game = Game.objects.get(pk=lockstep_game.pk)
    assert game.status == GameStatus.FINISHED and game.outcome == "stopped by a researcher"
    assert game.result["progress"] == pytest.approx(100 * 2 / 6, abs=0.01)


class _Recorder:
    def __init__(self, calls):
        self.calls = calls

    def __call__(self, *args):
        self.calls.append(args)


def test_a_stopped_real_time_game_ends_at_the_time_on_its_clock(realtime_game, researcher):
    """Stopped at 2.6 on its clock, a game whose rules had last moved at a deadline ended "at
    minute 1" and its header went back to 1.0: the time before a stop was lost from the result."""
    services.apply_action(realtime_game.pk, agent=0, action="do sweep", by=realtime_game.seats.get().user, now=T0)
    services.finish(realtime_game.pk, reason="stopped by a researcher", by=researcher, now=T0 + timedelta(seconds=11))
    game = Game.objects.get(pk=realtime_game.pk)
    assert game.anchor_time == pytest.approx(5.5)  # 11 s at half a minute per second
    assert GameEvent.objects.get(game=game, kind="finished").time == 5  # the rules' whole minutes
    assert state_of(game).time == 5
