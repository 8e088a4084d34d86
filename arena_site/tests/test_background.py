"""The one helper for background work: named tasks, run in the caller, a thread or a worker."""

from __future__ import annotations

import threading
from unittest import mock

import pytest

from arena_site import background

TASKS = [
    "npc.turns",
    "npc.retry",
    "npc.benchmark",
    "npc.benchmark_item",
    "studies.run_export",
    "annotations.preannotate",
    "games.generate",
]


def test_every_queued_task_name_is_registered():
    assert [background.task(name).name for name in TASKS] == TASKS


def test_an_unknown_task_is_an_error_naming_the_known_ones():
    with pytest.raises(background.UnknownTask, match=r"'npc.turn'.*npc\.turns"):
        background.task("npc.turn")


def _recording_task(monkeypatch):
    calls: list[tuple[str, tuple[int, ...]]] = []
    done = threading.Event()
    task = background.task("npc.turns")

    def run(*args: int) -> None:
        calls.append((threading.current_thread().name, args))
        done.set()

    monkeypatch.setattr(task, "run", run)
    return task, calls, done


def test_inline_runs_the_task_in_the_caller(settings, monkeypatch):
    settings.BACKGROUND_INLINE = True
    _task, calls, _done = _recording_task(monkeypatch)
    background.submit("npc.turns", 7)
    assert calls == [(threading.current_thread().name, (7,))]


def test_the_embedded_default_runs_the_task_in_a_thread(settings, monkeypatch):
    settings.BACKGROUND_INLINE = False
    settings.CELERY_TASK_ALWAYS_EAGER = True
    _task, calls, done = _recording_task(monkeypatch)
    background.submit("npc.turns", 8)
    assert done.wait(5)
    assert calls == [("npc.turns", (8,))]


def test_with_a_broker_the_task_goes_to_celery_with_its_countdown(settings, monkeypatch):
    settings.BACKGROUND_INLINE = False
    settings.CELERY_TASK_ALWAYS_EAGER = False
    task = background.task("npc.retry")
    with mock.patch.object(task, "apply_async") as apply_async:
        background.submit("npc.retry", 9, countdown=2.0)
    apply_async.assert_called_once_with(args=(9,), countdown=2.0)


def test_the_old_inline_setting_is_an_error_not_a_silent_thread(settings):
    settings.NPC_RUN_INLINE = True
    with pytest.raises(RuntimeError, match="BACKGROUND_INLINE"):
        background.submit("npc.turns", 1)


@pytest.mark.django_db
def test_submit_on_commit_waits_for_the_commit(settings, django_capture_on_commit_callbacks):
    with mock.patch.object(background, "submit") as submit, django_capture_on_commit_callbacks(execute=True):
        background.submit_on_commit("studies.run_export", 3)
        submit.assert_not_called()
    submit.assert_called_once_with("studies.run_export", 3, countdown=0.0)
    with pytest.raises(background.UnknownTask):
        background.submit_on_commit("studies.export", 3)
