"""Repeats, confidence intervals, pass^k and progress curves of benchmark runs."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from games.npc import stats
from games.npc.models import BenchmarkRun


def row(instance, attempt, **metrics):
    return {"item": {"key": f"{instance}|attempt={attempt}", "instance": instance}, "metrics": metrics}


def test_pass_hat_k_counts_an_instance_only_when_every_attempt_succeeds():
    rows = [row("a", 0, completed=True), row("a", 1, completed=True)]
    rows += [row("b", 0, completed=True), row("b", 1, completed=False)]
    lines = stats.pass_hat_k("tasks", rows)
    assert [(line["k"], line["value"]) for line in lines] == [(1, 75.0), (2, 50.0)]
    assert lines[1]["all_succeeded"] == 1


def test_the_interval_resamples_instances_not_attempts():
    # Two instances, far apart, each attempted many times identically: the attempts add no
    # information about other instances, so the interval stays as wide as two values give.
    rows = [row("a", i, progress=0.0) for i in range(20)] + [row("b", i, progress=100.0) for i in range(20)]
    line = stats.summary("tasks", rows)[0]
    assert line["instances"] == 2 and line["episodes"] == 40 and line["mean"] == 50.0
    assert line["low"] == 0.0 and line["high"] == 100.0
    many = [row(f"i{n}", 0, progress=float(n % 2) * 100) for n in range(40)]
    tighter = stats.summary("tasks", many)[0]
    assert tighter["mean"] == 50.0 and 20 < tighter["low"] < 50 < tighter["high"] < 80


def test_mean_and_ci_agree_with_scipy_and_one_instance_has_no_interval():
    assert stats.mean_ci([42.0]) == (42.0, None, None)
    assert stats.mean_ci([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0)
    mean, low, high = stats.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert mean == 3.5 and 1.0 <= low < 3.5 < high <= 6.0


def test_a_mean_curve_holds_each_episodes_last_score():
    short = [[0.0, 0, 0.0], [2.0, 1, 100.0]]
    long = [[0.0, 0, 0.0], [10.0, 5, 50.0]]
    curve = dict(stats.mean_curve([short, long], axis=0, points=11))
    assert curve[0.0] == 0.0 and curve[2.0] == 50.0 and curve[10.0] == 75.0
    by_turns = dict(stats.mean_curve([short, long], axis=1, points=6))
    assert by_turns[1.0] == 50.0 and by_turns[5.0] == 75.0


def test_repeats_play_every_item_k_times_and_the_page_draws_curves(tasks_scenarios, client, researcher):
    out = io.StringIO()
    call_command(
        "benchmark", "tasks", "--agent", "random", "--scenarios", "test/*", "--repeats", "3", "--json",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    summary = json.loads(out.getvalue())
    run = BenchmarkRun.objects.get(pk=summary["run"])
    assert run.total == 9 and summary["done"] == 9
    keys = sorted(r.key for r in run.results.all())
    assert keys[:3] == [f"test/chores1|agents=1|seed=0|attempt={a}" for a in range(3)]
    assert all(len(r.curve) >= 2 and r.curve[-1][2] == 100.0 for r in run.results.all())
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert "95 % confidence interval" in page and "pass^k" in page
    assert page.count('class="mean-line"') == 2  # against game time and against decisions
    assert page.count("<polyline") == 2 + 2 * 9  # each episode faint behind the mean


def test_repeats_are_refused_out_of_range(tasks_scenarios):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="repeats must be from 1 to 20"):
        call_command("benchmark", "tasks", "--agent", "random", "--repeats", "0", stdout=io.StringIO())


def test_a_domain_without_paper_metrics_gets_every_number_its_results_carry():
    rows = [row("a", 0, score=10, completed=True, note="x"), row("b", 0, score=30, completed=False)]
    lines = stats.summary("toy", rows)
    assert [(line["label"], line["mean"]) for line in lines] == [("score", 20.0), ("completed", 50.0)]
    assert stats.pass_hat_k("toy", rows)[0]["value"] == 50.0
    assert stats.pass_hat_k("toy", [row("a", 0, score=1)]) == []  # no notion of success, no pass^k


def test_an_itinerary_runs_page_explains_its_columns_as_the_itinerary_means_them(client, researcher):
    """Its "Efficiency (20)" read as recipes' time saved by working in parallel."""
    from games.domains.itinerary.tests.worlds import definition
    from games.scenarios import save_scenario

    save_scenario(domain="itinerary", slug="test/trip", title="trip", source="tests", definition=definition())
    out = io.StringIO()
    call_command(
        "benchmark", "itinerary", "--agent", "planner", "--scenarios", "test/*", "--json",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    run = BenchmarkRun.objects.get(pk=json.loads(out.getvalue())["run"])
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert '<dt>Efficiency (20)</dt><dd class="hint">Up to 20 points for a cheap or quick trip' in page
    assert "working in parallel" not in page


def test_prompt_options_are_checked_when_the_run_is_made_not_at_its_first_turn(tasks_scenarios):
    from games.npc import benchmarks

    items = [{"scenarios": ["test/chores1"], "agents": 1, "seed": 0}]
    for prompt, said in (
        ({"hints": "no"}, "prompt option hints is true or false"),
        ({"max_tokens": 0}, "prompt option max_tokens is a whole number from 1 to 8192"),
        ({"history": 3}, "unknown prompt option(s) history"),
    ):
        with pytest.raises(benchmarks.BenchmarkError, match=re.escape(said)):
            benchmarks.create_run("tasks", "random", items, prompt=prompt)
    assert benchmarks.create_run("tasks", "random", items, prompt={"hints": False, "max_tokens": 300}).pk
