"""``manage.py describe kitchen`` and ``manage.py benchmark kitchen``."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.importers import bundled_kitchen


def run(*args):
    from io import StringIO

    out = StringIO()
    call_command(*args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_describe_prints_tools_and_parameters_per_alpha():
    bundled_kitchen.load(log=lambda line: None)
    data = run("describe", "kitchen", "--level", "bundled/salad-bar", "--alpha", "1.0", "--alpha", "2")
    assert data["tools"] == ["storage0", "servingtable0", "chopboard0", "chopboard1", "mixer0"]
    assert set(data["by_alpha"]) == {"1.0", "2"}  # keyed as written
    # gardenSalad: 3 chopped + 3 raw + the salad = 7 nodes, no tool busy > 1: total 21.
    assert data["by_alpha"]["1.0"]["lifetimes"]["gardenSalad"] == 16  # ceil(2.5 * 0.3 * 21)
    assert data["by_alpha"]["1.0"]["task_interval"] == 7  # ceil(0.3 * 21)
    default = run("describe", "kitchen", "--level", "salad-bar")
    assert list(default["by_alpha"]) == ["1.0", "1.5", "2.0", "2.5", "3.0"]


@pytest.mark.datasets
@pytest.mark.django_db
def test_describe_reads_a_cuisineworld_folder(datasets_dir):
    data = run("describe", "kitchen", "--level", "level_3", "--data", str(datasets_dir / "cuisineworld"))
    assert data["level"] == "cuisineworld/level_3"
    assert data["by_alpha"]["1.0"] == {"task_interval": 6, "lifetimes": {"salmonSushi": 13, "tunaSushi": 13}}


@pytest.mark.django_db
def test_benchmark_runs_the_sweep_and_prints_cos():
    data = run(
        "benchmark",
        "kitchen",
        "--level",
        "bundled/warm-up",
        "--agents",
        "2",
        "--dispatcher",
        "heuristic",
        "--episodes",
        "1",
    )
    assert data["dispatcher"] == "heuristic" and data["agents"] == 2
    assert list(data["by_alpha"]) == ["1.0", "1.5", "2.0", "2.5", "3.0"]
    assert data["by_alpha"]["3.0"]["completed"] > 0
    assert 0 < data["cos"] <= 1


@pytest.mark.django_db
def test_bad_arguments_get_a_clear_error():
    with pytest.raises(CommandError, match="no kitchen level 'nowhere'"):
        run("benchmark", "kitchen", "--level", "nowhere")
    with pytest.raises(CommandError, match="α must be positive"):
        run("describe", "kitchen", "--level", "warm-up", "--alpha", "0")
