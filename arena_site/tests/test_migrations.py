"""Every model change has its migration: an annotation project's default guidelines changed in
stop 47 without one, so a fresh database and the models disagreed until a session noticed."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_and_their_migrations_agree():
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:  # makemigrations --check exits 1 when a migration is missing
        pytest.fail(f"a model change has no migration (run manage.py makemigrations): {out.getvalue()}")
