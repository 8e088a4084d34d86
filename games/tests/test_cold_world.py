"""A cold load of an itinerary game in a process that has not compiled its travel world: the
snapshot names the world, and the state store compiles it from the game's scenario."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from games import selectors, services, state_store
from games.domains.itinerary.state import WORLDS
from games.engine import registry
from games.models import Game, GameSnapshot, Scenario

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_a_cold_itinerary_game_loads_in_a_process_without_its_world(participant):
    registry.descriptor("itinerary").part("bundled")(log=lambda line: None)
    slug = Scenario.objects.current().filter(domain="itinerary").order_by("slug").values_list("slug", flat=True)[0]
    game = services.create_game(slug, [{"kind": "human", "user": participant}], clock="lockstep", now=T0)
    rules = registry.get("itinerary")
    state = selectors.current_state(Game.objects.get(pk=game.pk))[1]
    services.apply_action(game.pk, agent=0, action=rules.legal_actions(state, 0)[0], now=T0)
    game = Game.objects.get(pk=game.pk)
    expected = rules.dump_state(selectors.current_state(game)[1])
    assert "definition" not in GameSnapshot.objects.get(game=game).state  # the world is named, not copied

    WORLDS.clear()  # another worker: no compiled world, no cached state
    state_store.forget()
    cold = state_store.state_at(rules, game, game.last_seq)
    assert rules.dump_state(cold) == expected
