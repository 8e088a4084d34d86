"""Annotation tests create many users: hash their passwords cheaply (PBKDF2 costs ~1 s per user here)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
