"""The engine and domains stay free of Django, Channels, Celery and Redis (ARCHITECTURE.md, 1)."""

import ast
from pathlib import Path

import pytest

FORBIDDEN = ("django", "channels", "celery", "redis", "channels_redis", "daphne")
ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ["engine", "domains", "planners"]


def _python_files():
    for package in PURE_PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", list(_python_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module_imports_no_framework(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
