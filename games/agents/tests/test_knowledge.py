"""What an LLM teammate is told besides the observation comes from each domain's descriptor."""

from __future__ import annotations

from games.agents.knowledge import relevant_knowledge
from games.domains.kitchen.rules import RULES as KITCHEN
from games.domains.kitchen.tests.test_rules import SUSHI
from games.domains.recipes.knowledge import book, progress
from games.domains.recipes.rules import RULES as RECIPES
from games.domains.recipes.tests.kitchens import kitchen


def test_recipes_list_every_step_with_its_time_then_where_each_step_stands():
    start = RECIPES.initial_state(kitchen())
    text = relevant_knowledge("recipes", start)
    assert text.startswith("Recipe Bake:\n  step 0: Preheat the oven to 350. (10 min; runs by itself; oven)\n")
    assert text.endswith("Where the steps stand at 00:00:00:\n  Bake: to do 0, 1, 2, 3\n  Soup: to do 0, 1, 2")
    state = RECIPES.act(start, 0, "Step(0, Bake)", 0).state  # the oven preheats by itself
    state = RECIPES.act(state, 0, "Step(1, Bake)", 0).state  # the cook mixes (5 min, can be paused)
    state = RECIPES.advance(state, 120).state
    state = RECIPES.act(state, 0, "Pause(1, Bake)", 120).state
    assert progress(state).splitlines()[1] == "  Bake: under way 0 (until 00:10:00); paused 1 (3 min left); to do 2, 3"
    state = RECIPES.advance(state, 600).state
    assert progress(state).splitlines()[1] == "  Bake: done 0; paused 1 (3 min left); to do 2, 3"
    # A step under way is not "done" (it read "[done]" once its whole time was scheduled).
    assert book(state) == book(start)  # the book reads the same all game: only the progress changes


def test_the_kitchen_lists_the_recipe_trees_of_the_dishes_ordered():
    state = KITCHEN.initial_state(SUSHI, seed=3, agents=2)
    assert [order.dish for order in state.orders] == ["salmonSushi"]
    assert relevant_knowledge("kitchen", state).splitlines() == [
        "salmonSashimi = salmon in a chopboard",
        "cookedRice = rice in a pot",
        "salmonSushi = cookedRice + salmonSashimi in a mixer",
    ]


def test_tasks_and_itineraries_say_it_all_in_the_observation():
    assert relevant_knowledge("tasks", object()) == ""
    assert relevant_knowledge("itinerary", object()) == ""
