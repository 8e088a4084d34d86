"""Participant codes count per study (P0001, P0002 ... in each): numbered across all studies, a
study's export jumped from P0015 to P0017 and read as a missing row."""

from __future__ import annotations

import pytest

from studies import services

pytestmark = pytest.mark.django_db


def test_codes_count_per_study_and_resume_codes_still_work(make_study):
    first = make_study(title="First")
    second = make_study(title="Second")
    a1 = services.join(first, external_id="A1")
    b1 = services.join(second, external_id="B1")
    a2 = services.join(first)
    assert (a1.code, a2.code, b1.code) == ("P0001", "P0002", "P0001")
    assert str(a1) == "P0001 (A1)"
    # a resume code still finds its participation, with or without an external id
    assert services.resume(first, external_id="A1", code=a1.resume_code) == a1
    assert services.resume(first, external_id="", code=a2.resume_code, client="x") == a2
    # the data dictionary says what a code is and what a gap means
    from studies.exports.people import PARTICIPANT_COLUMNS

    (described,) = [c.description for c in PARTICIPANT_COLUMNS if c.name == "participant"]
    assert "numbered per study" in described and "A gap is a participant left out" in described


def test_the_migration_keeps_the_codes_participants_already_had(make_study):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("studies.migrations.0013_participant_number_per_study")
    earlier = make_study(title="Earlier")
    for k in range(3):
        services.join(earlier, external_id=f"E{k}")
    study = make_study()
    people = [services.join(study, external_id=f"X{k}") for k in range(2)]
    assert [p.code for p in people] == ["P0001", "P0002"]
    migration.keep_existing_codes(apps, None)
    for person in people:
        person.refresh_from_db()
        assert person.code == f"P{person.pk:04d}"  # what their code read before the numbers per study
