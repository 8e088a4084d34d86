from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


def seats_made_before_are_ready(apps, schema_editor):
    """Seats of games made before a seat knew it was ready: every one is, except those of a game
    still waiting for its player's Start (then that person's Start starts it, as it did)."""
    Seat = apps.get_model("games", "Seat")
    waiting = Q(game__paused=True, game__pause_reason="ready", kind="human")
    Seat.objects.exclude(waiting).update(ready_at=timezone.now())


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_outcome_500"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="ready_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When this seat's person pressed Start (or was not asked to): the clock of a game made to start when ready runs once every person's seat is ready.",
                null=True,
            ),
        ),
        migrations.RunPython(seats_made_before_are_ready, migrations.RunPython.noop),
    ]
