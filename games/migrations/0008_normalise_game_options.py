"""Stored games' options rewritten as the rules read them before stop 49, so that they pass the
checks the rules now make (games.engine.options) and every existing game still loads and replays
exactly as it was played: an option the rules ignored is dropped, a text read as a switch becomes
the true or false it was read as, a number becomes the number it was read as."""

import contextlib
from typing import Any

from django.db import migrations

_OFF = {"off", "false", "0", "no"}


def _switch(value: Any) -> bool:
    return bool(value)


def _recipes_constraints(value: Any) -> bool:
    # recipes read a text as off when it said so, as on otherwise
    return value.strip().lower() not in _OFF if isinstance(value, str) else bool(value)


# per domain: the options its rules read then, and how each value was read
READ_AS = {
    "tasks": {
        "constrained": _switch,
        "time_limit": lambda v: int(v) if v else None,  # 0 or none: the default limit
        "max_rejected_in_row": int,
        "rejection_costs_minute": _switch,
    },
    "recipes": {"time_constraints": _recipes_constraints, "hints": _switch, "max_rejections": int, "max_repeats": int},
    "kitchen": {"alpha": float, "beta": float, "max_steps": int},
    "itinerary": {},
}


def normalise(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    for game in Game.objects.exclude(options={}).only("pk", "domain", "options").iterator():
        known = READ_AS.get(game.domain)
        if known is None or not isinstance(game.options, dict):
            continue
        read: dict[str, Any] = {}
        for name, value in game.options.items():
            if name not in known or value is None:
                continue
            # a value the rules could not read either (the game could not have started): kept as stored
            with contextlib.suppress(TypeError, ValueError):
                value = known[name](value)
            if value is not None:
                read[name] = value
        if read != game.options:
            Game.objects.filter(pk=game.pk).update(options=read)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_scenario_certificate"),
    ]

    operations = [migrations.RunPython(normalise, migrations.RunPython.noop)]
