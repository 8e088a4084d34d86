"""A chat message nobody sent from a seat or an account (a study's researcher writing to a
participant's game) was stored as from "agent None" and read "agent None: Message from the
researcher: ..."; such entries now name no sender, as new ones do (games.services.playing)."""

from typing import Any

from django.db import migrations


def unname(apps: Any, schema_editor: Any) -> None:
    GameEvent = apps.get_model("games", "GameEvent")
    for entry in GameEvent.objects.filter(category="chat", agent__isnull=True).only("pk", "data").iterator():
        if isinstance(entry.data, dict) and entry.data.get("from") == "agent None":
            GameEvent.objects.filter(pk=entry.pk).update(data={**entry.data, "from": ""})


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_normalise_game_options"),
    ]

    operations = [migrations.RunPython(unname, migrations.RunPython.noop)]
