"""A game's outcome is stored whole: the result panel ended a spoiled recipe's reason mid-sentence
("... only when step 1 can follow it in.") where the stored field stopped at 200 characters."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen
from games.models import Game
from games.scenarios import save_scenario
from games.services.loop import OUTCOME_LENGTH, clipped


@pytest.mark.django_db
def test_a_spoiled_recipes_reason_is_kept_to_its_last_word(client, participant):
    soup = dict(SOUP, name="Tomato Soup with Garlic")  # Omelette_Tomato-Soup's reason was 226 characters
    definition = kitchen(BAKE, soup)
    save_scenario(domain="recipes", slug="test/bake-soup", title="Bake and soup", source="test", definition=definition)
    game = services.create_game(
        "test/bake-soup", [{"kind": "human", "user": participant}], options={"time_constraints": True}
    )
    # mixing keeps the cook busy past the stir's window
    for action in ("Step(0, Tomato Soup with Garlic)", "Step(1, Tomato Soup with Garlic)", "Step(1, Bake)"):
        services.apply_action(game.pk, agent=0, action=action, by=participant)
        while (game := Game.objects.get(pk=game.pk)).status == "running" and not _free(game):
            services.pass_turn(game.pk, agent=0, by=participant)
    while (game := Game.objects.get(pk=game.pk)).status == "running":
        services.pass_turn(game.pk, agent=0, by=participant)
    assert game.outcome.startswith("Time constraint violated"), game.outcome
    assert len(game.outcome) > 200 and game.outcome.endswith("can follow it in time."), game.outcome
    # and the game reads "failed" in the danger colour, not "finished" in the success one
    assert game.failed
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert '<span class="badge danger"' in page and ">failed</span>" in page and ">finished</span>" not in page
    assert 'class="card result failed"' in page


def _free(game: Game) -> bool:
    from games.engine import registry
    from games.state_store import state_at

    rules = registry.get(game.rule_set_id)
    return 0 in rules.awaiting(state_at(rules, game, game.last_seq))


def test_an_outcome_too_long_is_cut_at_a_word():
    assert Game._meta.get_field("outcome").max_length == OUTCOME_LENGTH
    assert clipped("short enough", 20) == "short enough"
    cut = clipped("one two three four five", 12)
    assert cut == "one two…" and len(cut) <= 12
