"""Line numbers for the fields of a JSON text (what the editor points at)."""

from __future__ import annotations

import json

from games.studio.locate import json_lines, line_of


def test_every_value_and_key_of_a_json_text_has_its_line():
    text = json.dumps({"name": "Soup", "steps": [{"time": "1 min"}, {"time": "2 min"}], "last": None}, indent=2)
    lines = json_lines(text)
    # 1 {, 2 "name", 3 "steps": [, 4 {, 5 "time": "1 min", 6 }, 7 {, 8 "time", 9 }, 10 ], 11 "last", 12 }
    assert lines[()] == 1 and lines[("name",)] == 2 and lines[("steps",)] == 3
    assert (lines[("steps", 0)], lines[("steps", 0, "time")], lines[("steps", 1, "time")]) == (4, 5, 8)
    assert lines[("last",)] == 11 and line_of(lines, ("steps", 1, "time", "missing")) == 8
    assert json_lines('{"a": 1}') == {(): 1, ("a",): 1} and json_lines("{not json") == {}


def test_a_long_list_has_each_item_on_its_own_line():
    # found by bisecting the line ends once: counting the newlines before each of 100,000 values
    # took 20 s (a recipe of 100,000 ingredients in the studio)
    text = json.dumps({"ingredients": ["tomato"] * 100_000}, indent=1)
    lines = json_lines(text)
    assert lines[("ingredients", 0)] == 3 and lines[("ingredients", 99_999)] == 100_002
    assert lines[("ingredients",)] == 2 and len(lines) == 100_002
