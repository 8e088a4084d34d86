"""The label schema of SPEC section 9: canonical values, helpful errors, recipe round trips."""

from __future__ import annotations

import pytest

from annotations.schema import LabelError, apply_labels_to_step, check_label, labels_of_step, parse_item_id


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("concurrency", "autonomous"),
        ("interruptibility", "not_interruptible"),
        ("resource", "none"),
        ("resource", "oven+stove"),
        ("time_constraint", "2:5"),
        ("time_constraint", "none"),
        ("dependency", "1+4"),
    ],
)
def test_canonical_labels_pass(prop, value):
    assert check_label(prop, value, step=6, steps=range(7)) == value


@pytest.mark.parametrize(
    ("prop", "value", "hint"),
    [
        ("concurrency", "parallel", "autonomous, continuous"),
        ("resource", "stove+oven", "'oven+stove'"),
        ("resource", "fryer", "fryer"),
        ("time_constraint", "2 min", "k:N"),
        ("time_constraint", "3:0", "positive"),
        ("time_constraint", "6:2", "itself"),
        ("time_constraint", "9:2", "does not have"),
        ("dependency", "4+1", "'1+4'"),
        ("colour", "red", "unknown property"),
    ],
)
def test_bad_labels_say_what_to_write(prop, value, hint):
    with pytest.raises(LabelError) as info:
        check_label(prop, value, step=6, steps=range(7))
    assert hint in str(info.value)


def test_item_ids():
    assert parse_item_id("Cobbler/3").key == "Cobbler/3"
    assert parse_item_id("Chocolate-Cake/12").step == 12
    for bad in ["Cobbler", "Cobbler/x", "/3", "a/b/3"]:
        with pytest.raises(LabelError, match="recipe/step"):
            parse_item_id(bad)


def test_step_labels_round_trip_through_the_recipe_format():
    step = {
        "step": 3,
        "text": "Pour it in the pan.",
        "time": "1 min",
        "prequisites": [2],
        "time_constraint": {"2": "2 min"},
        "interrupt": 0,
        "parallel": 0,
        "physical": {"oven": {"require": {"temperature": 350.0}}},
    }
    labels = labels_of_step(step)
    assert labels == {
        "concurrency": "continuous",
        "interruptibility": "not_interruptible",
        "resource": "oven",
        "time_constraint": "2:2",
        "dependency": "2",
    }
    assert apply_labels_to_step(step, labels) == step
    changed = apply_labels_to_step(
        step, {"resource": "oven+stove", "time_constraint": "none", "concurrency": "autonomous"}
    )
    assert changed["physical"] == {"oven": {"require": {"temperature": 350.0}}, "stove": {"require": {}, "update": {}}}
    assert changed["time_constraint"] == {} and changed["parallel"] == 1
