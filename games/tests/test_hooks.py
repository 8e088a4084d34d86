"""The extension points of games/hooks.py: their modules found at start-up, and when unsure, blinded."""

from __future__ import annotations

import pytest

from games import hooks


def test_a_failing_blinded_hook_blinds_every_game_it_was_asked_about(monkeypatch):
    def broken(game_ids: list[int]) -> set[int]:
        raise RuntimeError("the studies database is away")

    monkeypatch.setattr(hooks, "BLINDED", ["games.tests.test_hooks:broken"])
    monkeypatch.setitem(hooks._resolved, "games.tests.test_hooks:broken", broken)
    assert hooks.blinded([3, 5]) == {3, 5}


def test_start_up_finds_a_missing_blinded_hook(monkeypatch):
    monkeypatch.setattr(hooks, "BLINDED", ["studies.no_such_module:blinded_games"])
    with pytest.raises(Exception, match="no_such_module"):
        hooks.check()
