"""A game's options are checked before the rules read them, in every domain: a misspelt option
and a value of the wrong kind are refused with a message naming them (they were read as left out,
or a text such as "no" as true), and a game with good options starts as before."""

from __future__ import annotations

import pytest

from games.engine import registry
from games.studio.formats import parse, starter


def _start(domain: str, options: dict) -> object:
    definition = parse(domain, "options-test", starter(domain))
    agents = 3 if domain == "kitchen" else 1
    return registry.get(domain).initial_state(definition, seed=0, agents=agents, options=options)


@pytest.mark.parametrize(
    ("domain", "options", "said"),
    [
        ("tasks", {"constrained": "no"}, 'option constrained must be true or false, not "no"'),
        ("tasks", {"time_limit": 0}, "option time_limit must be a whole number from 1 to 100000, not 0"),
        ("tasks", {"constraind": True}, "unknown tasks option 'constraind': did you mean 'constrained'?"),
        ("recipes", {"time_constraints": "off"}, 'option time_constraints must be true or false, not "off"'),
        ("recipes", {"hints": 1}, "option hints must be true or false, not 1"),
        ("recipes", {"bogus": 1}, "unknown recipes option 'bogus': the options are time_constraints, hints"),
        ("kitchen", {"alpha": "big"}, 'option alpha must be a number above 0 and at most 100, not "big"'),
        ("kitchen", {"alpha": -3}, "option alpha must be a number above 0 and at most 100, not -3"),
        ("kitchen", {"max_steps": 2.5}, "option max_steps must be a whole number from 1 to 10000, not 2.5"),
        ("kitchen", {"max_steps": 100_000_000}, "from 1 to 10000, not 100000000"),
        ("kitchen", {"alpah": 1.5}, "unknown kitchen option 'alpah': did you mean 'alpha'?"),
        ("itinerary", {"hints": True}, "itinerary games take no options; leave out 'hints'"),
    ],
)
def test_a_bad_option_is_refused_naming_it(domain, options, said):
    with pytest.raises(ValueError) as refused:
        _start(domain, options)
    assert said in str(refused.value)


@pytest.mark.parametrize(
    ("domain", "options"),
    [
        ("tasks", {"constrained": True, "time_limit": 90, "max_rejected_in_row": 0}),
        ("recipes", {"time_constraints": False, "hints": True, "max_rejections": 0}),
        ("kitchen", {"alpha": 1.5, "beta": 3, "max_steps": 30}),
        ("itinerary", {}),
    ],
)
def test_good_options_start_the_game(domain, options):
    state = _start(domain, options)
    assert registry.get(domain).load_state(registry.get(domain).dump_state(state)) == state


@pytest.mark.django_db
def test_stored_games_options_are_rewritten_as_the_rules_read_them_so_they_still_load(participant):
    # games made before the checks (over the API) may hold options the rules now refuse; the
    # migration rewrites them as they were read, so each still loads and replays as it was played
    from importlib import import_module

    from django.apps import apps

    from games import selectors, services
    from games.importers import bundled_kitchen, bundled_recipes
    from games.models import Game

    bundled_recipes.load(log=lambda line: None)
    bundled_kitchen.load(log=lambda line: None)
    seat = [{"kind": "human", "user": participant}]
    soup = services.create_game("bundled/Omelette_Tomato-Soup", seat, clock="lockstep")
    grill = services.create_game("bundled/breakfast-grill", seat, clock="lockstep")
    Game.objects.filter(pk=soup.pk).update(options={"time_constraints": "off", "hints": 1, "bogus": 2})
    Game.objects.filter(pk=grill.pk).update(options={"alpha": "1.5", "max_steps": 30.0, "colour": "red"})
    import_module("games.migrations.0008_normalise_game_options").normalise(apps, None)
    soup, grill = Game.objects.get(pk=soup.pk), Game.objects.get(pk=grill.pk)
    assert soup.options == {"time_constraints": False, "hints": True}
    assert grill.options == {"alpha": 1.5, "max_steps": 30}
    assert not selectors.rebuild_state(soup, upto_seq=1).options.time_constraints
    assert selectors.rebuild_state(grill, upto_seq=1).level.alpha == 1.5
