"""Every row of every domain's result panel says what it means (games.glossary): a first-time
player reads "Progress time 31" with the words that explain it."""

from __future__ import annotations

import pytest

from games import glossary
from games.engine import registry
from games.presenters import metric_rows
from games.tests.test_conformance import bundled_definitions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("domain", registry.domains())
def test_every_result_row_of_every_domain_has_plain_words(domain):
    rules = registry.get(domain)
    definition = next(iter(bundled_definitions(domain).values()))
    rows = metric_rows(rules.result(rules.initial_state(definition)), domain)
    assert rows
    assert [name for name, _, meaning in rows if not meaning] == []


@pytest.mark.parametrize("domain", registry.domains())
def test_a_study_participant_sees_how_the_game_went_not_its_settings(domain):
    # a condition that varies the kitchen's alpha or the recipes' time constraints must not show
    # participants what is being compared
    rules = registry.get(domain)
    definition = next(iter(bundled_definitions(domain).values()))
    result = rules.result(rules.initial_state(definition))
    settings = {key.split(":", 1)[1] for key in glossary.SETTINGS if key.startswith(f"{domain}:")}
    shown = {name for name, _, _ in metric_rows(result, domain)}
    blind = {name for name, _, _ in metric_rows(result, domain, blind=True)}
    assert shown - blind == {glossary.label(key, domain) for key in settings if key in result}
    assert blind  # how it went is still there


def test_a_benchmark_tables_column_is_explained_as_its_domain_means_it():
    """An itinerary run's "Efficiency (20)" was explained as recipes' time saved by working in parallel."""
    from games.templatetags.games_extras import explain_term

    assert explain_term("Efficiency (20)", "itinerary").startswith("Up to 20 points for a cheap or quick trip")
    assert "working in parallel" in explain_term("Efficiency", "recipes")
    assert explain_term("α=1.5", "kitchen").startswith("Success rate at alpha 1.5")
