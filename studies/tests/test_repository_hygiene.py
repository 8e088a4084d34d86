"""The repository never tracks the shared virtualenv or local data.

Every worktree's ``.venv`` is a symlink to the shared one; a tracked ``.venv`` symlink once replaced
the shared virtualenv in the main checkout on a fast-forward (git treats ignored files as
expendable). This check fails the smoke run of whoever would land such a commit.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_virtualenv_or_local_data_is_tracked():
    tracked = subprocess.run(
        ["git", "ls-files", "--", ".venv", "var"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == [], f"untrack these with `git rm --cached`: {tracked}"
