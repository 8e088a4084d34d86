"""``manage.py plan|score|describe itinerary``: output fields, --data, stored briefs, bad input."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.importers.bundled_itinerary import load


def run(*args):
    out = StringIO()
    call_command(*args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.datasets
def test_plan_and_score_read_the_published_files_directly(datasets_dir, tmp_path, capsys):
    data = str(datasets_dir / "itinerarybench")
    planned = run("plan", "itinerary", "--data", data, "--sample", "type1:0")
    assert set(planned) == {"sample", "feasible", "plan", "score", "solve_seconds"}
    assert planned["sample"] == "type1:0" and planned["feasible"] and planned["score"]["total"] >= 80
    assert set(planned["score"]) == {"executability", "constraints", "efficiency", "total", "failed_checks"}

    plan_file = tmp_path / "plan.txt"
    plan_file.write_text("\n".join(planned["plan"]) + "\n")
    scored = run("score", "itinerary", "--data", data, "--sample", "type1:0", "--plan", str(plan_file))
    assert scored == planned["score"]

    plan_file.write_text(planned["plan"][0].replace("K1748", "K0000") + "\n")
    capsys.readouterr()
    scored = run("score", "itinerary", "--data", data, "--sample", "type1:0", "--plan", str(plan_file))
    assert scored["executability"] < 60 and any("train failed" in m for m in scored["failed_checks"])
    assert "line 1: train failed" in capsys.readouterr().err


@pytest.mark.datasets
def test_repeated_samples_give_a_list_and_name_the_infeasible(datasets_dir, capsys):
    data = str(datasets_dir / "itinerarybench")
    planned = run("plan", "itinerary", "--data", data, "--sample", "type2:15", "--sample", "type3:0")
    assert [p["sample"] for p in planned] == ["type2:15", "type3:0"]
    assert planned[0]["feasible"] is False and planned[0]["plan"] == []
    assert "type2:15: no feasible plan" in capsys.readouterr().err
    assert planned[1]["feasible"] and planned[1]["score"]["total"] >= 80


@pytest.mark.django_db
def test_stored_bundled_brief_plans_and_describes():
    load(log=lambda _line: None)
    planned = run("plan", "itinerary", "--slug", "bundled/lakes-and-stones")
    assert planned["feasible"] and planned["score"]["total"] >= 80
    described = run("describe", "itinerary", "--slug", "bundled/lakes-and-stones")
    assert "Heron Island" in described[0]["observation"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plan", "itinerary"], "name a brief"),
        (["plan", "itinerary", "--sample", "type7:1"], "not a sample name"),
        (["plan", "itinerary", "--sample", "type1:0"], "import the data first"),
        (["score", "itinerary", "--slug", "bundled/grand-tour", "--plan", "/nonexistent/plan.txt"], "does not exist"),
        (["plan", "itinerary", "--data", "/nonexistent", "--sample", "type1:0"], "travel.db"),
    ],
)
def test_bad_arguments_say_what_to_do(args, message):
    load(log=lambda _line: None)
    with pytest.raises(CommandError, match=message):
        call_command(*args)
