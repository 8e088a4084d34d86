"""Scenario generators: new instances on demand, each with a solver-computed optimum beside it.

Plain Python (no Django). One module per domain, named by its descriptor's ``generator``
(``games.generators.family.domains()`` lists them), each with ``KNOBS`` (the difficulty knobs),
``build(rng, knobs, index)`` (one definition) and ``evaluate(definition, knobs, max_seconds)``
(its optimum, lower bound, the reference heuristic's value and stats). ``generate`` in
``games.generators.family`` runs them; ``manage.py generate`` and the studio's generator page print
or save what it returns.
"""
