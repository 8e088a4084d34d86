"""Django storage for each domain's browsable catalogue (one small Django app per domain).

``games/domains/<domain>/`` holds the pure rules; ``games/catalog/<domain>/`` holds the models,
admin and migrations that store that domain's content (tasks and actions, recipes and steps,
kitchen levels, travel data). Playable content always also exists as a ``games.Scenario`` whose
``definition`` is what the engine reads.
"""
