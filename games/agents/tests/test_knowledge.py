"""What an LLM teammate is told besides the observation comes from each domain's descriptor."""

from __future__ import annotations

from games.agents.knowledge import relevant_knowledge
from games.domains.kitchen.rules import RULES as KITCHEN
from games.domains.kitchen.tests.test_rules import SUSHI
from games.domains.recipes.rules import RULES as RECIPES
from games.domains.recipes.tests.kitchens import kitchen


def test_recipes_list_every_step_with_its_time_and_state():
    text = relevant_knowledge("recipes", RECIPES.initial_state(kitchen()))
    assert text.startswith("Recipe ") and "  step 0: " in text and "[to do]" in text


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
