"""Participant codes count per study (P0001, P0002 ... in each), no longer across all studies (a
study's export jumped from P0015 to P0017 and read as a missing row). Participants already there
keep the number their code had (their primary key, unique across studies, so unique within theirs):
codes in exports already downloaded stay true; new participants count on from the study's highest."""

from django.db import migrations, models


def keep_existing_codes(apps, schema_editor):
    Participant = apps.get_model("studies", "Participant")
    Participant.objects.update(number=models.F("pk"))


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0012_help_texts_say_what_the_settings_do"),
    ]

    operations = [
        migrations.AddField(
            model_name="participant",
            name="number",
            field=models.PositiveIntegerField(editable=False, null=True),
        ),
        migrations.RunPython(keep_existing_codes, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="participant",
            name="number",
            field=models.PositiveIntegerField(
                editable=False,
                help_text="Counts the study's participants in the order they joined (its code: P0001, P0002 ...). "
                "Participants who joined before codes were counted per study keep the number they had.",
            ),
        ),
        migrations.AddConstraint(
            model_name="participant",
            constraint=models.UniqueConstraint(fields=("study", "number"), name="participant_study_number_unique"),
        ),
    ]
