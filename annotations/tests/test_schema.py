"""The label schema of SPEC section 9: canonical values, helpful errors, recipe round trips."""

from __future__ import annotations

import re

import pytest

from annotations.schema import (
    LabelError,
    apply_labels_to_step,
    check_label,
    label_json_schema,
    labels_of_step,
    parse_item_id,
)


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
        ("time_constraint", "1:99999999999999999999", "at most 999"),  # was stored, then a recipe's constraint
        ("time_constraint", "\u0661:5", "k:N"),  # an Arabic-Indic one: int() reads it, the label format does not
        ("dependency", "1+4444", "step numbers"),
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


@pytest.mark.parametrize(
    ("prop", "value"),
    [("concurrency", "x" * 100_000), ("resource", "y" * 100_000), ("dependency", "+".join(["1"] * 50_000))],
)
def test_a_refused_label_quotes_at_most_forty_characters_of_what_was_sent(prop, value):
    """The annotation screen's refusal (and an import's error) repeated a 100 KB value whole."""
    with pytest.raises(LabelError) as info:
        check_label(prop, value, step=6, steps=range(7))
    assert len(str(info.value)) < 200 and "…" in str(info.value)


def test_a_label_naming_its_own_step_says_the_property_in_words():
    with pytest.raises(LabelError, match=r"^time constraint of step 6 cannot refer to step 6 itself$"):
        check_label("time_constraint", "6:2", step=6, steps=range(7))


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


def _fits(schema, value):
    if "enum" in schema:
        return value in schema["enum"]
    return re.fullmatch(schema["pattern"], value) is not None


@pytest.mark.parametrize(
    "prop, fitting, not_fitting",
    [
        ("concurrency", ["autonomous", "continuous"], ["parallel", "Autonomous"]),
        ("resource", ["none", "oven", "microwave+oven+stove", "oven+stove"], ["stove+oven", "grill", "oven, stove"]),
        ("dependency", ["none", "1", "1+4", "12+103"], ["1, 4", "step 1", "1+", "1234", ""]),
        ("time_constraint", ["none", "3:2", "1:5+4:10"], ["3", "3:", "3 : 2", "within 2 minutes"]),
    ],
)
def test_the_json_schema_of_a_property_holds_its_canonical_labels_and_not_others(prop, fitting, not_fitting):
    schema = label_json_schema(prop)
    assert schema["type"] == "string"
    for value in fitting:
        assert _fits(schema, value), value
        check_label(prop, value)  # what fits the schema is canonical (the recipe's own checks apart)
    for value in not_fitting:
        assert not _fits(schema, value), value


def test_every_resource_the_schema_offers_is_canonical():
    offered = label_json_schema("resource")["enum"]
    assert len(offered) == 8 == len(set(offered))
    assert all(check_label("resource", value) == value for value in offered)
