"""ItineraryBench import and the bundled itinerary world: counts, idempotence, atomicity."""

from __future__ import annotations

import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from games.catalog.itinerary.models import Brief, City, Place, Train, Transfer
from games.domains.itinerary.rules import RULES
from games.engine.conformance import check_rules
from games.importers.bundled_itinerary import definitions, load
from games.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.mark.datasets
@pytest.mark.slow
def test_import_itinerarybench_is_complete_and_idempotent(datasets_dir):
    folder = datasets_dir / "itinerarybench"
    call_command("import_dataset", "itinerarybench", str(folder))
    assert Scenario.objects.filter(domain="itinerary", slug__startswith="itinerarybench/").count() == 364
    assert Train.objects.filter(source="itinerarybench").count() == 3903
    assert Place.objects.filter(city__source="itinerarybench").count() == 119
    assert Transfer.objects.filter(origin__city__source="itinerarybench").count() == 846
    assert Brief.objects.filter(source="itinerarybench").count() == 364
    type3 = Scenario.objects.get(slug="itinerarybench/type3-0", is_current=True).definition
    # Quirks: the budget comes from the question, the objective follows the question's text.
    assert type3["budget"] == 2000.0 and type3["objective"] == "time"
    assert type3["efficiency"]["source"] == "derived"
    type2 = Scenario.objects.get(slug="itinerarybench/type2-0", is_current=True).definition
    assert type2["efficiency"] == {
        "quantity": "time",
        "min": 34907 / 60,
        "max": 42120 / 60,
        "unit": "minute",
        "source": "published",
    }
    before = list(Scenario.objects.values_list("pk", "version"))
    call_command("import_dataset", "itinerarybench", str(folder))
    assert list(Scenario.objects.values_list("pk", "version")) == before
    assert Train.objects.count() == 3903


@pytest.mark.datasets
def test_a_broken_sample_file_imports_nothing(datasets_dir, tmp_path):
    for name in ("travel.db", "data_type1.json", "data_type2.json"):
        shutil.copy(datasets_dir / "itinerarybench" / name, tmp_path / name)
    (tmp_path / "data_type3.json").write_text(json.dumps([{"question": "no demands"}]))
    with pytest.raises(CommandError, match="sample 0 lacks"):
        call_command("import_dataset", "itinerarybench", str(tmp_path))
    assert not Scenario.objects.filter(domain="itinerary").exists()
    assert not City.objects.exists()


def test_bundled_world_loads_once_and_plays():
    assert load(log=lambda _line: None) >= 6
    assert load(log=lambda _line: None) == 0
    slugs = set(Scenario.objects.filter(domain="itinerary", source="bundled").values_list("slug", flat=True))
    assert len(slugs) >= 6 and "bundled/grand-tour" in slugs
    assert City.objects.filter(source="bundled").count() == 4
    assert Train.objects.filter(source="bundled", number="C101-0501").exists()


def test_every_bundled_brief_passes_the_conformance_suite():
    for _brief, definition in definitions():
        check_rules(RULES, definition)
