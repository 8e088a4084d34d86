"""A person reads a recipe by its title everywhere: the refusal under the actions said "Step 0 of
Tomato-Soup is under way" (Recipe2Plan's one-word name, which programs send) beside a log and a
board that say "Tomato Soup". Programs keep the rules' own words, names included."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from accounts.tokens import create_token
from games import services
from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen
from games.scenarios import save_scenario
from games.tests.wsclient import TIMEOUT, Client

SOUP_NAME = "Tomato-Soup"


@database_sync_to_async
def two_cooks(researcher) -> tuple[int, str]:
    definition = kitchen(BAKE, dict(SOUP, name=SOUP_NAME))
    save_scenario(domain="recipes", slug="test/tomato", title="Tomato", source="test", definition=definition)
    seats = [{"kind": "program", "user": researcher}, {"kind": "program", "user": researcher}]
    game = services.create_game("test/tomato", seats, clock="lockstep", created_by=researcher)
    return game.pk, create_token(researcher)


async def refusal(client: Client) -> str:
    """The next "Not taken" the page is sent (html frames are not JSON)."""
    while True:
        text = await client.communicator.receive_from(timeout=TIMEOUT)
        if "Not taken" in text:
            return text


@pytest.mark.django_db(transaction=True)
async def test_a_refusal_on_the_page_names_the_recipe_by_its_title_and_the_teammate_doing_the_step(researcher):
    game, token = await two_cooks(researcher)
    page = Client(game, token, query="format=html")
    program = Client(game, token)
    assert await page.connect() and await program.connect()
    await page.send({"type": "act", "agent": 1, "action": f"Step(0, {SOUP_NAME}, 00:02:00)"})
    await page.send({"type": "act", "agent": 0, "action": f"Step(0, {SOUP_NAME})"})
    said = await refusal(page)
    assert "Step 0 of Tomato Soup is under way: a teammate is doing it until 2:00" in said, said
    assert SOUP_NAME not in said
    # a program reads the rules' words: the name it sends
    await program.send({"type": "act", "agent": 0, "action": f"Step(0, {SOUP_NAME})"})
    feedback = await program.receive_until("feedback")
    assert f"Step 0 of {SOUP_NAME} is under way: a teammate is doing it until 00:02:00" in feedback["message"]
    await page.close()
    await program.close()


def test_the_outcome_and_any_refusal_read_titles_from_the_observation():
    from games.domains.recipes.rules import RULES
    from games.presenters import in_peoples_words

    state = RULES.initial_state(kitchen(BAKE, dict(SOUP, name=SOUP_NAME)), agents=1)
    data = RULES.observe(state, 0).data
    said = f"You are busy with step 0 of {SOUP_NAME} until 00:04:00; start step 1 of Bake at or after 00:04:00."
    assert in_peoples_words("recipes", said, 0, data) == (
        "You are busy with step 0 of Tomato Soup until 4:00; start step 1 of Bake at or after 4:00."
    )
    assert SOUP_NAME in in_peoples_words("recipes", said, 0)  # without the observation: the rules' name
