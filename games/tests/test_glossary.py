"""Every row of every domain's result panel says what it means (games.glossary): a first-time
player reads "Progress time 31" with the words that explain it."""

from __future__ import annotations

import pytest

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
