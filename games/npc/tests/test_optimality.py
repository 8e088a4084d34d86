"""Benchmark runs on generated instances measured against the certified optimum they were saved
with (games.npc.optimality): per instance and overall, on the run page and in the CSV."""

from __future__ import annotations

import csv
import io

import pytest

from games.generators.family import generate
from games.models import Scenario
from games.npc import benchmarks, optimality
from games.npc.tasksets import build_items
from games.scenarios import save_generated, save_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(db):
    """Two generated tasks instances (8 actions, one agent), saved with their certificates."""
    instances = generate("tasks", count=2, seed=5, knobs={"actions": 8}, max_seconds=2)
    save_generated("tasks", instances)
    return instances


def row(slug, *, completed=True, minutes=None, agents=1, error=""):
    item = {"scenarios": [slug], "agents": agents, "seed": 0, "group": {}}
    return {"item": item, "metrics": {"completed": completed, "completion_time": minutes}, "error": error}


def test_saving_a_generated_instance_keeps_its_certificate_and_a_better_one_replaces_it(family):
    first = family[0]
    stored = Scenario.objects.get(slug=first["slug"], is_current=True)
    assert stored.certificate["optimal_makespan"] == first["optimal_makespan"]
    assert stored.certificate["optimal"] == first["optimal"] and stored.certificate["basis"] == {"agents": 1}
    better = {**stored.certificate, "lower_bound": stored.certificate["optimal_makespan"], "optimal": True}
    again, changed = save_scenario(
        domain="tasks",
        slug=stored.slug,
        title=stored.title,
        source=stored.source,
        definition=stored.definition,
        description=stored.description,
        certificate=better,
    )
    assert not changed and again.pk == stored.pk and again.version == 1
    assert Scenario.objects.get(pk=stored.pk).certificate == better


def test_episodes_are_compared_only_when_they_finished_under_the_optimums_conditions(family):
    one, two = family
    best_one, best_two = one["optimal_makespan"], two["optimal_makespan"]
    rows = [
        row(one["slug"], minutes=best_one),
        row(one["slug"], minutes=best_one + 6),
        row(one["slug"], completed=False),  # not finished: not compared
        row(one["slug"], minutes=best_one, agents=2),  # another team size: not compared
        row(two["slug"], minutes=2 * best_two),
        row(two["slug"], error="could not start"),  # not played: left out
        row("bundled/make-tea", minutes=3),  # no certificate: left out
    ]
    found = optimality.against_optimum("tasks", rows)
    first, second = found["instances"]
    assert (first["slug"], first["episodes"], first["compared"], first["at_optimum"]) == (one["slug"], 4, 2, 1)
    assert first["best"] == best_one
    assert first["mean_ratio"] == pytest.approx((1 + (best_one + 6) / best_one) / 2, abs=1e-3)
    assert (second["compared"], second["mean_ratio"]) == (1, 2.0)
    assert found["mean_ratio"] == pytest.approx((first["mean_ratio"] + 2.0) / 2, abs=1e-3)
    assert (found["episodes"], found["compared"], found["at_optimum"]) == (5, 3, 1)
    expected = (one["greedy_makespan"] / best_one + two["greedy_makespan"] / best_two) / 2
    assert found["heuristic_ratio"] == pytest.approx(expected, abs=1e-3)
    # the run page says why the two-agent episode was not compared
    assert found["teams"] == "the optimum is for 1 agent and episodes played with 2"
    alone = optimality.against_optimum("tasks", [row(one["slug"], minutes=best_one, agents=2)])
    assert alone["compared"] == 0 and alone["teams"] == found["teams"]
    from django.template.loader import render_to_string

    run = benchmarks.create_run("tasks", "planner", build_items("tasks", patterns=[one["slug"]]))
    html = render_to_string("npc/_benchmark_progress.html", {"optimum": alone, "run": run})
    assert "none is compared (the optimum is for 1 agent and episodes played with 2)." in html
    assert Scenario.objects.get(slug=one["slug"], is_current=True).description.count("for 1 agent (") == 1


def test_nothing_to_compare_without_certified_scenarios(family):
    assert optimality.against_optimum("tasks", [row("bundled/make-tea", minutes=3)]) is None
    assert optimality.against_optimum("kitchen", [row(family[0]["slug"], minutes=3)]) is None


def test_no_finished_episode_beats_a_proven_optimum_and_the_run_shows_and_exports_the_comparison(
    family, client, researcher
):
    """The planner's episodes, played by the rules, never end before a proven CP-SAT optimum: the
    solver's model and the game's rules agree."""
    assert all(instance["optimal"] for instance in family)
    items = build_items("tasks", patterns=[f"generated/{family[0]['family']}-*"])
    run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    found = optimality.against_optimum("tasks", benchmarks.result_rows(run))
    assert found["compared"] == found["episodes"] == 2
    assert all(instance["mean_ratio"] >= 1 for instance in found["instances"])

    client.force_login(researcher)
    page = client.get(f"/benchmarks/{run.pk}/").content.decode()
    assert "Against the certified optimum" in page and family[0]["slug"] in page
    exported = list(csv.DictReader(io.StringIO(client.get(f"/benchmarks/{run.pk}/results.csv").content.decode())))
    assert [float(line["optimum"]) for line in exported] == [float(i["optimal_makespan"]) for i in family]
    assert all(float(line["optimum_ratio"]) >= 1 and line["optimum_proven"] == "True" for line in exported)


def test_recipe_pairs_played_by_the_rules_never_end_before_their_proven_optimum(db, client, researcher):
    instances = generate("recipes", count=2, seed=3, knobs={"steps": 6}, max_seconds=2)
    save_generated("recipes", instances)
    assert all(instance["optimal"] for instance in instances)
    items = build_items("recipes", patterns=[f"generated/{instances[0]['family']}-*"])
    run = benchmarks.run_benchmark(benchmarks.create_run("recipes", "planner", items).pk)
    found = optimality.against_optimum("recipes", benchmarks.result_rows(run))
    assert benchmarks.summary(run)["optimum"] == found  # what `manage.py benchmark --json` prints
    # Only the episodes with time constraints on are compared (the optimum holds for those).
    assert found["episodes"] == len(items) and found["compared"] == 2
    assert all(instance["mean_ratio"] >= 1 for instance in found["instances"])
    # the run's page writes them as the recipes page writes game time, the seconds on hover
    from games.generators.recipes import show

    client.force_login(researcher)
    page = client.get(f"/benchmarks/{run.pk}/").content.decode()
    optimum = instances[0]["optimal_makespan"]
    assert f'title="{optimum}">{show(optimum)}</td>' in page


def play_alone(slug, person):
    """A person's lockstep game on ``slug``, played to the end by the planner teammate's choices."""
    from games import selectors, services
    from games.engine import registry
    from games.models import Game
    from games.planners.tasks_npc import npc_policy

    game = services.create_game(slug, [{"kind": "human", "user": person}], clock="lockstep")
    rules = registry.get("tasks")
    for _ in range(500):
        game = Game.objects.get(pk=game.pk)
        if game.is_finished:
            return game
        action = npc_policy(rules, selectors.current_state(game)[1], 0)
        services.apply_action(game.pk, agent=0, action=action, by=person)
    raise AssertionError("the game did not end")


def test_a_finished_game_on_a_generated_instance_reads_against_its_optimum(family, client, participant):
    instance = family[0]
    game = play_alone(instance["slug"], participant)
    assert game.result["completed"]
    taken = game.result["completion_time"]
    client.force_login(participant)
    page = " ".join(client.get(f"/games/{game.pk}/").content.decode().split())
    assert f"The best possible: <strong>{instance['optimal_makespan']:g} minutes</strong>" in page
    assert "proven optimal" in page
    assert f"This game took {taken:g} minutes, <strong>{taken / instance['optimal_makespan']:.2f}×</strong>" in page


def test_the_comparison_sets_people_and_the_reference_plan_against_the_optimum(family, client, participant, researcher):
    instance = family[0]
    game = play_alone(instance["slug"], participant)
    items = build_items("tasks", patterns=[f"generated/{instance['family']}-*"])
    benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    client.force_login(researcher)
    page = client.get("/benchmarks/compare/tasks/")
    certified = {source["label"]: source["optimum"] for source in page.context["certified"]}
    people = certified["People alone"]
    assert (people["episodes"], people["compared"]) == (1, 1)
    assert people["mean_ratio"] == pytest.approx(
        game.result["completion_time"] / instance["optimal_makespan"], abs=1e-3
    )
    (reference,) = [label for label in certified if label.startswith("Reference plan")]
    assert certified[reference]["compared"] == 2 and certified[reference]["mean_ratio"] >= 1
    assert "Against the certified optimum" in page.content.decode()


def test_a_family_generated_for_a_team_is_benchmarked_by_that_team_and_compared(db):
    """The generator page sends a family to the benchmark form "compared with its instance's
    optimum"; a family generated for 2 agents was played by 1 and no episode was compared."""
    instances = generate("tasks", count=2, seed=5, knobs={"actions": 8, "agents": 2}, max_seconds=2)
    save_generated("tasks", instances)
    items = build_items("tasks", patterns=[f"generated/{instances[0]['family']}-*"])
    assert [item["agents"] for item in items] == [2, 2]
    run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    found = optimality.against_optimum("tasks", benchmarks.result_rows(run))
    assert found["compared"] == found["episodes"] == 2 and not found["teams"]
    assert all(instance["mean_ratio"] >= 1 for instance in found["instances"])
