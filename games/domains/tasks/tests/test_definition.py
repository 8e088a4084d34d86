import pytest

from games.domains.tasks.definition import DefinitionError, check_new, compile_definition, compose, validate
from games.domains.tasks.tests.helpers import RICE, SOUP, bundled, bundled_names, task


def test_a_single_task_keeps_its_object_names():
    compiled = compile_definition(RICE)
    assert [a.text for a in compiled.actions] == ["wash dish", "pick rice", "cook rice in pot", "add rice to dish"]
    pot = compiled.object_index["pot"]
    assert pot.appliance and pot.capacity == 1 and pot.task is None


def test_objects_in_several_tasks_are_renamed_per_task_and_appliances_pooled():
    compiled = compile_definition(compose([RICE, SOUP]))
    texts = [a.text for a in compiled.actions]
    assert "wash dish_1" in texts and "wash dish_2" in texts
    assert "add rice to dish_1" in texts and "add carrot to dish_2" in texts
    # rice and carrot appear in one task only: no suffix.
    assert "pick rice" in texts and "pick carrot" in texts
    assert compiled.object_index["dish_1"].task == 0 and compiled.object_index["dish_1"].label == "dish"
    assert compiled.object_index["pot"].capacity == 2


def test_constrained_mode_has_one_of_each_appliance():
    assert compile_definition(compose([RICE, SOUP]), constrained=True).object_index["pot"].capacity == 1


def test_an_appliance_counts_one_per_background_use():
    two_fryers = task(
        "fries",
        [("fry potato in fryer", 3, True, []), ("fry fish in fryer", 4, True, []), ("clean fryer", 1, False, [])],
        appliances=["fryer"],
    )
    assert compile_definition(two_fryers).object_index["fryer"].capacity == 2


def test_compose_refuses_the_same_task_twice():
    with pytest.raises(DefinitionError, match="appears twice"):
        compose([RICE, RICE])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["tasks"][0]["actions"][0].update(minutes=0), r"actions\[0\]\.minutes"),
        (lambda d: d["tasks"][0]["actions"][0].update(name="wash the dish"), r"actions\[0\]\.name"),
        (lambda d: d["tasks"][0]["actions"][3].update(requires=["boil dish"]), "'boil dish' is not an action"),
        (lambda d: d["tasks"][0]["actions"][1].update(requires=["add rice to dish"]), "circle"),
        (lambda d: d.update(tasks=[]), "tasks: must be a non-empty list"),
        (lambda d: d["tasks"][0]["actions"][2].update(name="wash dish"), r"\[2\]\.name: 'wash dish' appears twice"),
    ],
)
def test_validate_names_the_field_at_fault(change, message):
    import copy

    broken = copy.deepcopy(RICE)
    change(broken)
    with pytest.raises(DefinitionError, match=message):
        validate(broken)


def test_we_ship_at_least_ten_valid_bundled_tasks():
    names = bundled_names()
    assert len(names) >= 10
    for name in names:
        validate(bundled(name))


def test_a_new_definition_lists_each_prerequisite_once_and_a_stored_one_still_compiles():
    # a list is stored as written: 200,000 repeats of one prerequisite were saved; a definition
    # stored before the check still compiles (its games keep playing)
    import copy

    repeated = copy.deepcopy(RICE)
    repeated["tasks"][0]["actions"][3]["requires"] = ["pick rice", "pick rice"]
    with pytest.raises(DefinitionError, match=r"actions\[3\]\.requires: 'pick rice' is listed twice"):
        check_new(repeated)
    assert [a.text for a in compile_definition(repeated).actions] == [a.text for a in compile_definition(RICE).actions]
    check_new(RICE)
