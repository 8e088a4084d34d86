"""Bad files end with one line naming the file, the record and the field, and write nothing; an
import never changes a person's labels (issue 15 findings 6 and 7)."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from annotations import services
from annotations.importing import ImportFailed, import_labels
from annotations.models import Assignment, Label, Project
from annotations.tests.factories import make_recipe
from games.models import Scenario

pytestmark = pytest.mark.django_db

HEADER = "item_id,annotator,property,label\n"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("Cobbler/0,amy,concurrency," + "x" * 200_000 + "\n", "line 3: field larger than field limit"),
        ("Cobbler/0,a\x00my,concurrency,autonomous\n", "line 3: field annotator has a NUL byte"),
        ("Cobbler/0,amy,concurrency,auto\x00nomous\n", "line 3: field label has a NUL byte"),
        ("Cobbler/0," + "a" * 400 + ",concurrency,autonomous\n", "line 3: field annotator"),
    ],
)
def test_a_bad_csv_names_the_line_and_field_and_writes_nothing(body, problem):
    with pytest.raises(ImportFailed) as failed:
        import_labels("p", [HEADER, "Cobbler/1,amy,concurrency,autonomous\n", body])
    assert problem in str(failed.value)
    assert not Project.objects.exists() and not Label.objects.exists()


def test_an_import_never_changes_a_persons_labels(annotator, researcher):
    project = services.create_project(
        name="People",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency"],
        annotators=[annotator],
        annotators_per_item=1,
        created_by=researcher,
    )
    unit = project.recipes.get()
    person = services.annotator_for_user(annotator)
    assignment = Assignment.objects.get(recipe=unit, annotator=person)
    item = unit.items.get(step=0)
    services.save_label(user=annotator, item=item, prop="concurrency", value="continuous")
    csv = [HEADER, f"{item.key},{person.name},concurrency,autonomous\n"]
    with pytest.raises(ImportFailed, match="never changes a person's labels"):
        import_labels(project.name, csv)
    assert Label.objects.get(item=item, annotator=person).value == "continuous"
    assert Assignment.objects.get(pk=assignment.pk).submitted_at is None


def command_error(dataset: str, path) -> str:
    with pytest.raises(CommandError) as error:
        call_command("import_dataset", dataset, str(path))
    return str(error.value)


def test_import_dataset_names_file_record_and_field_for_bad_files(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    assert "nothing imported" in command_error("timearena", deep) and "deep.json" in command_error("timearena", deep)
    binary = tmp_path / "cooking.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    message = command_error("recipe2plan", binary)
    assert "nothing imported" in message and "cooking.json" in message and "utf-8" in message.lower()
    assert "not UTF-8" in command_error("timearena", binary)
    step = {"step": 0, "text": "mix", "time": "1 min", "prequisites": ["first"]}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([[{"recipe": "Cake", "steps": [step]}]]))
    message = command_error("recipe2plan", bad)
    assert "bad.json" in message and "instance 0 recipe 0 (Cake) step 0" in message and "'prequisites'" in message
    assert "\n" not in message.strip()
    assert not Scenario.objects.exists()
