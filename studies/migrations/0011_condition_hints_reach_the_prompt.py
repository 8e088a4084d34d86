"""A condition's "Hints" text was stored as ``dispatcher["hints"]``, which no dispatcher read: it
moves to the prompt options (``dispatcher["prompt"]["own_hints"]``), where the LLM dispatcher adds
it to the prompt's hints."""

from django.db import migrations

OWN_HINTS_MAX = 2000  # games.agents.llm_dispatcher.OWN_HINTS_MAX when this was written


def move_hints(apps, schema_editor):
    Condition = apps.get_model("studies", "Condition")
    for condition in Condition.objects.all().iterator():
        settings = dict(condition.dispatcher or {})
        text = settings.pop("hints", None)
        if not isinstance(text, str):
            continue
        prompt = settings.get("prompt") if isinstance(settings.get("prompt"), dict) else {}
        if text.strip():
            prompt = {**prompt, "own_hints": text.strip()[:OWN_HINTS_MAX]}
        if prompt:
            settings["prompt"] = prompt
        condition.dispatcher = settings
        condition.save(update_fields=["dispatcher"])


def restore_hints(apps, schema_editor):
    Condition = apps.get_model("studies", "Condition")
    for condition in Condition.objects.all().iterator():
        settings = dict(condition.dispatcher or {})
        prompt = settings.get("prompt")
        if not isinstance(prompt, dict) or "own_hints" not in prompt:
            continue
        prompt = dict(prompt)
        settings["hints"] = prompt.pop("own_hints")
        if prompt:
            settings["prompt"] = prompt
        else:
            settings.pop("prompt")
        condition.dispatcher = settings
        condition.save(update_fields=["dispatcher"])


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0010_study_pace_blank_is_each_scenarios_own"),
    ]

    operations = [migrations.RunPython(move_hints, restore_hints)]
