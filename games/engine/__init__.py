"""The framework-free game engine.

Nothing in ``games.engine`` or ``games.domains`` may import Django, Channels, Celery or Redis:
``games/engine/tests/test_boundary.py`` and the import-linter contract in ``pyproject.toml``
enforce it. Rule sets are plain Python over immutable, JSON-serialisable states.
"""
