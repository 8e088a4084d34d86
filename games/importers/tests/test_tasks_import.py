import json

import pytest
from django.core.management import CommandError, call_command

from games.catalog.tasks.models import Action, Prerequisite, Task
from games.domains.tasks.rules import RULES
from games.engine.conformance import check_rules
from games.importers.bundled_tasks import load
from games.models import Scenario
from games.scenarios import current_scenario

pytestmark = pytest.mark.django_db


def test_bundled_tasks_load_once_as_playable_scenarios():
    assert load(log=lambda line: None) >= 10
    assert load(log=lambda line: None) == 0  # a second run changes nothing
    tea = current_scenario("bundled/make-tea")
    assert tea.domain == "tasks" and tea.source == "bundled"
    check_rules(RULES, tea.definition)
    record = Task.objects.get(scenario=tea)
    boil = Action.objects.get(task=record, name="boil kettle")
    assert boil.background and boil.minutes == 4
    assert [p.requires.name for p in boil.prerequisites.all()] == ["fill kettle"]


@pytest.mark.datasets
def test_import_timearena_is_idempotent_and_corrects_two_names(datasets_dir, capsys):
    path = datasets_dir / "timearena" / "dependencygraph.json"
    call_command("import_dataset", "timearena", str(path))
    first = capsys.readouterr()
    assert "30 created" in first.out
    assert "fruit_tree" in first.out and "beaker" in first.out
    counts = (Scenario.objects.count(), Task.objects.count(), Action.objects.count(), Prerequisite.objects.count())
    call_command("import_dataset", "timearena", str(path))
    assert "30 unchanged" in capsys.readouterr().out
    assert counts == (
        Scenario.objects.count(),
        Task.objects.count(),
        Action.objects.count(),
        Prerequisite.objects.count(),
    )
    cooking2 = current_scenario("timearena/cooking2")
    fryer = Task.objects.get(scenario=cooking2).task_objects.get(name="fryer")
    assert fryer.appliance and fryer.count == 2
    household4 = Task.objects.get(scenario=current_scenario("timearena/household4"))
    assert household4.actions.filter(name="water fruit_tree by watering_can").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"cooking1": [{"wash dish": 3}]}', "cooking1: expected a pair"),
        ('{"cooking1": [{"wash dish": "three"}, {}]}', "cooking1[0]['wash dish']: minutes"),
        ('{"cooking1": [{"wash dish": 3}, {"wash dish": ["pick dish"]}]}', "prerequisite 'pick dish'"),
        ('{"cooking1": [{"wash dish": 3}, {}],\n "lab1": [', "line 2"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_fault_and_nothing_is_imported(tmp_path, content, says):
    good = {"household9": [{"fold quilt": 3}, {}]}
    path = tmp_path / "dependencygraph.json"
    # The valid task comes first: a half-import would leave it behind.
    path.write_text(json.dumps(good)[:-1] + ", " + content.strip()[1:])
    with pytest.raises(CommandError) as error:
        call_command("import_dataset", "timearena", str(path))
    assert says in str(error.value) and "nothing imported" in str(error.value)
    assert not Scenario.objects.exists() and not Task.objects.exists()


def test_the_catalogue_is_browsable_in_the_admin(admin_client):
    load(log=lambda line: None)
    record = Task.objects.get(scenario__slug="bundled/make-tea")
    listing = admin_client.get("/admin/catalog_tasks/task/?q=tea")
    assert listing.status_code == 200 and "Make tea" in listing.content.decode()
    page = admin_client.get(f"/admin/catalog_tasks/task/{record.pk}/change/")
    assert page.status_code == 200 and "boil kettle" in page.content.decode()
