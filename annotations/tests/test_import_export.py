"""CSV import (all or nothing, line numbers), CSV/JSONL export round trip, gold as recipes, the commands."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotations import services
from annotations.exports import csv_lines, gold_recipes, jsonl_lines
from annotations.importing import ImportFailed, import_labels
from annotations.models import Annotator, Item, Label, Project
from annotations.tests.factories import make_recipe

pytestmark = pytest.mark.django_db

GOOD = """item_id,annotator,property,label
Cobbler/0,amy,concurrency,autonomous
Cobbler/0,bob,concurrency,autonomous
Cobbler/2,amy,time_constraint,1:2
Cobbler/2,bob,time_constraint,none
Cobbler/2,amy,resource,none
Dumplings/4,amy,resource,stove
Dumplings/4,bob,resource,oven+stove
"""


def test_import_creates_project_annotators_and_items():
    make_recipe("Cobbler")
    summary = import_labels("Imported", io.StringIO(GOOD))
    assert summary == {
        "project": "Imported",
        "created_project": True,
        "labels": 7,
        "annotators": 2,
        "items": 3,
        "new_items": 1,  # Cobbler comes whole from the catalogue; Dumplings/4 is created on its own
    }
    project = Project.objects.get(name="Imported")
    assert project.properties == ["concurrency", "resource", "time_constraint"]
    assert Item.objects.filter(project=project, recipe__name="Cobbler").count() == 5
    assert Item.objects.get(project=project, key="Dumplings/4").recipe.recipe is None
    assert set(Annotator.objects.values_list("name", flat=True)) == {"amy", "bob"}


def test_a_bad_row_is_reported_with_its_line_number_and_nothing_is_imported():
    make_recipe("Cobbler")
    bad = GOOD + "Cobbler/9,amy,concurrency,autonomous\nCobbler/1,amy,resource,stove+oven\nCobbler1,amy,resource,oven\n"
    with pytest.raises(ImportFailed) as info:
        import_labels("Imported", io.StringIO(bad))
    problems = info.value.problems
    assert problems[0].startswith("line 9: recipe Cobbler has no step 9")
    assert problems[1].startswith("line 10:") and "'oven+stove'" in problems[1]
    assert problems[2].startswith("line 11:") and "recipe/step" in problems[2]
    assert not Project.objects.exists() and not Label.objects.exists() and not Annotator.objects.exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "line 1: the file is empty"),
        ("item,who,prop,label\n", "line 1: the header must be"),
        ("item_id,annotator,property,label\nCobbler/1,amy,concurrency\n", "line 2: expected 4 columns"),
        ("item_id,annotator,property,label\nCobbler/1,amy,colour,red\n", "line 2: unknown property 'colour'"),
        (
            "item_id,annotator,property,label\nCobbler/1,amy,concurrency,autonomous\nCobbler/1,amy,concurrency,continuous\n",
            "line 3: amy labelled Cobbler/1 concurrency 'autonomous' on line 2",
        ),
        ("item_id,annotator,property,label\n", "no rows"),
        # longer than the columns: Postgres refused them with a server error
        (f"item_id,annotator,property,label\nCobbler/1,{'a' * 151},concurrency,none\n", "field annotator is longer"),
        (f"item_id,annotator,property,label\n{'R' * 201}/1,amy,concurrency,none\n", "field item_id is longer"),
        ("item_id,annotator,property,label\nR/3000000000,amy,concurrency,none\n", "step 3000000000 is past 9999"),
        ("item_id,annotator,property,label\nR/99999999999999999999,amy,concurrency,none\n", "is past 9999"),
    ],
)
def test_import_problems(text, expected):
    with pytest.raises(ImportFailed, match=expected):
        import_labels("P", io.StringIO(text))
    assert not Project.objects.exists()


def test_an_import_never_labels_in_the_name_of_a_person_of_the_site(django_user_model):
    # a user who had not labelled yet got the imported labels as theirs, and the project in their queue
    django_user_model.objects.create_user("amy")
    # the advice names the file's annotator (it read "e.g. imported:{row.annotator}")
    with pytest.raises(ImportFailed, match=r"field annotator: amy labels on this site.*e\.g\. imported:amy\)"):
        import_labels("Imported", io.StringIO(GOOD))
    assert not Label.objects.exists() and not Annotator.objects.exists()


def test_export_round_trip_csv_and_jsonl(tmp_path):
    make_recipe("Cobbler")
    import_labels("Imported", io.StringIO(GOOD))
    project = Project.objects.get(name="Imported")
    exported = "".join(csv_lines(project))
    assert exported.splitlines()[0] == "item_id,annotator,property,label"
    assert sorted(exported.splitlines()[1:]) == sorted(GOOD.splitlines()[1:])
    records = [json.loads(line) for line in jsonl_lines(project)]
    assert {"item_id": "Dumplings/4", "annotator": "bob", "property": "resource", "label": "oven+stove"} in records
    # What we export, another install imports unchanged.
    path = tmp_path / "labels.csv"
    path.write_text(exported)
    call_command("import_annotations", "--project", "Copy", str(path), stdout=io.StringIO())
    assert "".join(csv_lines(Project.objects.get(name="Copy"))) == exported


def test_gold_exports_as_recipe2plan_recipes(researcher):
    make_recipe("Cobbler")
    import_labels("Imported", io.StringIO(GOOD))
    project = Project.objects.get(name="Imported")
    item = project.items.get(key="Cobbler/2")
    services.set_gold(user=researcher, item=item, prop="time_constraint", value="1:3")
    services.set_gold(user=researcher, item=item, prop="resource", value="stove")
    (cobbler,) = gold_recipes(project)
    step = cobbler["steps"][2]
    assert cobbler["recipe"] == "Cobbler"
    assert step["time_constraint"] == {"1": "3 min"} and step["physical"] == {"stove": {"require": {}, "update": {}}}
    assert step["time"] == "1 min" and step["prequisites"] == [1]
    assert cobbler["steps"][0]["physical"] == {"oven": {"require": {}, "update": {"temperature": 350}}}  # no gold: kept


def test_agreement_report_command_json_shape(tmp_path):
    rows = ["item_id,annotator,property,label"]
    a = ["autonomous", "autonomous", "continuous", "continuous", "autonomous"]
    b = ["autonomous", "continuous", "continuous", "continuous", "autonomous"]
    c = ["autonomous", "autonomous", "continuous", "autonomous"]  # cat skipped step 4
    for name, labels in (("zed", a), ("amy", b), ("cat", c)):
        rows += [f"Soup/{i},{name},concurrency,{label}" for i, label in enumerate(labels)]
    path = tmp_path / "soup.csv"
    path.write_text("\n".join(rows) + "\n")
    call_command("import_annotations", "--project", "Soup", str(path), stdout=io.StringIO())
    out = io.StringIO()
    call_command("agreement_report", "--project", "Soup", "--json", stdout=out)
    report = json.loads(out.getvalue())
    row = report["properties"]["concurrency"]
    assert set(row["cohen_kappa"]) == {"amy|cat", "amy|zed", "cat|zed"}
    assert row["fleiss_items"] == 4 and row["items"] == 5
    # amy vs zed on 5 items: agree on 4; amy says autonomous 2/5, zed 3/5 -> kappa = (.8 - .48) / .52
    assert row["cohen_kappa"]["amy|zed"] == pytest.approx(0.32 / 0.52)
    assert isinstance(row["fleiss_kappa"], float) and isinstance(row["krippendorff_alpha"], float)
    assert row["percent_agreement"] == pytest.approx(100 * (1 + 1 / 3 + 1 + 1 / 3 + 1) / 5)


def test_commands_explain_bad_input(tmp_path):
    with pytest.raises(CommandError, match="no annotation project named 'Nope'"):
        call_command("agreement_report", "--project", "Nope", "--json")
    with pytest.raises(CommandError, match="no file at"):
        call_command("import_annotations", "--project", "X", str(tmp_path / "missing.csv"))
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,annotator,property,label\nCobbler/1,amy,concurrency,fast\n")
    with pytest.raises(CommandError, match="line 2: concurrency label 'fast'"):
        call_command("import_annotations", "--project", "X", str(bad))


def test_an_annotator_named_like_a_formula_is_quoted_in_the_csv_and_imported_back_by_name():
    make_recipe("Cobbler")
    import_labels("Imported", io.StringIO("item_id,annotator,property,label\nCobbler/0,@amy,concurrency,autonomous\n"))
    exported = "".join(csv_lines(Project.objects.get(name="Imported")))
    assert exported.splitlines()[1] == "Cobbler/0,'@amy,concurrency,autonomous"  # not a spreadsheet formula
    import_labels("Copy", io.StringIO(exported))
    assert "".join(csv_lines(Project.objects.get(name="Copy"))) == exported
    assert set(Annotator.objects.values_list("name", flat=True)) == {"@amy"}
