"""Humans beside models: people's games on the same scenarios as rows of the same tables, and the
comparison page per domain with the reference plan."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from games import selectors, services
from games.agents.planner_agent import PlannerBrain
from games.agents.turns import Turn
from games.engine import registry
from games.models import Game
from games.npc import comparison
from games.npc.models import BenchmarkRun, RunStatus
from games.npc.turns import wait_action


def play_as_person(slug, user, *, moves, npc=None):
    """A person plays ``moves`` actions of the planner's choosing (a skilled player), then stops;
    ``npc``: a dispatcher kind seated beside them."""
    seats = [{"kind": "human", "user": user}] + ([{"kind": "npc", "dispatcher": npc}] if npc else [])
    game = services.create_game(slug, seats, clock="lockstep")
    rules = registry.get(game.domain)
    brain, memory = PlannerBrain(game.domain), {}
    for _ in range(moves):
        if Game.objects.get(pk=game.pk).is_finished:
            break
        state = selectors.current_state(Game.objects.get(pk=game.pk))[1]
        decision = brain.decide(Turn(rules, state, [0]), memory)
        action = decision.actions[0][1] if decision.actions else wait_action(rules, state, 0)
        if action is None:
            break
        services.apply_action(game.pk, agent=0, action=action, by=user)
    services.finish(game.pk, reason="the player stopped", by=user)
    return Game.objects.get(pk=game.pk)


def run_json(*args):
    out = io.StringIO()
    call_command("benchmark", "tasks", *args, "--json", stdout=out, stderr=io.StringIO())
    return BenchmarkRun.objects.get(pk=json.loads(out.getvalue())["run"])


def test_peoples_games_on_the_same_scenarios_are_rows_with_the_same_metrics(tasks_scenarios, participant):
    run = run_json("--agent", "random", "--scenarios", "test/chores1", "test/chores2")
    finished = play_as_person("test/chores1", participant, moves=50)
    partial = play_as_person("test/chores2", participant, moves=0)
    play_as_person("test/chores3", participant, moves=50)  # not a scenario the run played
    assert finished.result["completed"] is True and partial.result["completed"] is False
    groups = comparison.human_rows("tasks", {comparison.signature(i) for i in run.items})
    assert list(groups) == ["People alone"]
    rows = groups["People alone"]
    assert sorted(r["item"]["game"] for r in rows) == sorted([finished.pk, partial.pk])
    view = comparison.compare("tasks", [run])
    people = next(s for s in view["sources"] if s["kind"] == "human")
    model = next(s for s in view["sources"] if s["kind"] == "run")
    assert people["table"]["columns"] == model["table"]["columns"] == ["AS", "CS", "CR", "CT"]
    assert [line["label"] for line in people["summary"]] == [line["label"] for line in model["summary"]]
    completed = next(line for line in people["summary"] if line["label"].startswith("CR"))
    assert completed["mean"] == 50.0 and completed["instances"] == 2
    assert people["pass_k"][0]["value"] == 50.0


def test_the_by_scenario_table_says_which_scenarios_each_source_played(tasks_scenarios, participant):
    # the pooled tables averaged a person's one scenario beside a run's two: this table lays them
    # side by side, each cell the mean final score of the source's episodes on that scenario
    run = run_json("--agent", "random", "--scenarios", "test/chores1", "test/chores2", "--repeats", "2")
    finished = play_as_person("test/chores1", participant, moves=50)
    view = comparison.compare("tasks", [run])
    table = view["by_scenario"]
    assert table["columns"] == [source["label"] for source in view["sources"]]
    people = table["columns"].index("People alone")
    model = next(i for i, s in enumerate(view["sources"]) if s["kind"] == "run")
    names = [line["name"] for line in table["rows"]]
    assert names == ["chores 1", "chores 2"]  # the scenarios' titles
    first, second = table["rows"]
    assert first["cells"][people] == {"mean": float(finished.progress_points[-1][1]), "episodes": 1}
    assert second["cells"][people] is None  # the person did not play chores2
    finals = [r.curve[-1][-1] for r in run.results.all() if r.item["scenarios"] == ["test/chores2"]]
    assert second["cells"][model] == {"mean": pytest.approx(sum(finals) / len(finals)), "episodes": 2}


def test_the_by_scenario_table_puts_what_several_sources_played_first_and_folds_a_long_tail():
    # a run over the 364 published briefs made a table of 364 rows, the few a person also played
    # somewhere in the middle by name
    def row(slug: str, score: float) -> dict:
        return {"item": {"key": slug, "scenarios": [slug]}, "curve": [[0, 0.0], [5, score]]}

    planner = [row(f"brief-{i}", 50.0 + i / 10) for i in range(30)]
    person = [row("brief-17", 80.0), row("brief-25", 60.0)]
    table = comparison.by_scenario([{"label": "planner"}, {"label": "people"}], [planner, person])
    names = [line["name"] for line in table["rows"]]
    assert names[:2] == ["brief-17", "brief-25"]  # both sources played these: compared first
    assert names[2:5] == ["brief-0", "brief-1", "brief-2"]  # then by name, its numbers as numbers
    assert len(table["rows"]) == comparison.SHOWN and len(table["more"]) == 30 - comparison.SHOWN
    assert {line["name"] for line in table["rows"] + table["more"]} == {f"brief-{i}" for i in range(30)}
    assert table["rows"][0]["cells"] == [{"mean": pytest.approx(51.7), "episodes": 1}, {"mean": 80.0, "episodes": 1}]
    from django.template.loader import render_to_string

    html = render_to_string("npc/_by_scenario_table.html", {"columns": ["planner", "people"], "rows": table["more"]})
    assert html.count('<th scope="row">') == 10 and "brief-29" in html


def test_people_are_grouped_by_who_played_beside_them(tasks_scenarios, participant, inline_npcs):
    play_as_person("test/chores1", participant, moves=50)
    play_as_person("test/chores1", participant, moves=50, npc="random")
    assert list(comparison.human_rows("tasks", None)) == ["People alone", "People with random NPCs"]


def test_the_comparison_page_shows_runs_people_and_the_reference_plan(
    tasks_scenarios, participant, researcher, client, settings
):
    settings.BACKGROUND_INLINE = True
    run = run_json("--agent", "random", "--scenarios", "test/*", "--repeats", "2")
    client.force_login(researcher)
    url = reverse("games:benchmark_compare", args=["tasks"])
    assert 'id="no-people"' in client.get(url).content.decode()  # says how people's rows come
    play_as_person("test/chores1", participant, moves=50)
    page = client.get(url).content.decode()
    assert 'id="no-people"' not in page
    assert f"random (run #{run.pk})" in page and "People alone" in page and "Reference plan" not in page
    response = client.post(reverse("games:benchmark_reference", args=["tasks"]), {"run": [run.pk]})
    reference = BenchmarkRun.objects.get(agent="planner")
    assert response.status_code == 302 and reference.status == RunStatus.DONE
    assert reference.total == 3  # one attempt per instance the run played
    page = client.get(url, {"run": [run.pk], "humans": ["0", "1"]}).content.decode()
    assert f"Reference plan (planner, run #{reference.pk})" in page and "People alone" in page
    assert page.count('class="mean-line"') == 3 + 2  # three sources against time, two with decisions
    by_scenario = page.split('id="by-scenario-h"')[1].split("</table>")[0]
    assert by_scenario.count('<th scope="row">chores ') == 3 and by_scenario.count('class="score-bar"') == 3 + 3 + 1
    without = client.get(url, {"run": [run.pk], "humans": "0"}).content.decode()
    assert "People alone" not in without
    # a baseline asks no model: no table of its zero calls and costs (it had one, and an empty one
    # with only the reference plan); a run that asked one has its row
    assert "Cost of the runs" not in page
    BenchmarkRun.objects.filter(pk=run.pk).update(config={**run.config, "llm": {"model": "some-model"}})
    costed = client.get(url, {"run": [run.pk]}).content.decode()
    assert "Cost of the runs" in costed
    assert f'<a href="/benchmarks/{run.pk}/">' in costed.split("Cost of the runs")[1]
    assert client.get(reverse("games:benchmark_compare", args=["nonsense"])).status_code == 404


def test_the_comparison_is_for_researchers(client, participant):
    client.force_login(participant)
    assert client.get(reverse("games:benchmark_compare", args=["tasks"])).status_code == 403
    assert client.post(reverse("games:benchmark_reference", args=["tasks"])).status_code == 403


@pytest.mark.parametrize("domain", ["recipes", "kitchen", "itinerary"])
def test_a_persons_game_lands_in_the_row_its_benchmark_item_would(domain):
    from games.npc.tasksets import item_for

    item = item_for(domain, ["x/type_2_a"], {"alpha": 2.0, "time_constraints": False}, 2, 5)
    expected = {
        "recipes": {"constraints": "without"},
        "kitchen": {"level": "x/type_2_a", "agents": 2, "alpha": 2.0},
        "itinerary": {"type": "type 2"},
    }[domain]
    assert item["group"] == expected and item["seed"] == 5


def test_a_kitchen_game_without_an_alpha_option_is_filed_at_the_alpha_its_level_ran_at():
    # a bundled level carries its own α (Breakfast grill 2); such a game was filed in the α 1 row
    from games.npc.tasksets import item_for

    assert item_for("kitchen", ["bundled/breakfast-grill"], {}, 1, 0, {"alpha": 2.0})["group"]["alpha"] == 2.0
    assert item_for("kitchen", ["bundled/breakfast-grill"], {}, 1, 0)["group"]["alpha"] == 1.0
    chosen = item_for("kitchen", ["bundled/breakfast-grill"], {"alpha": 1.5}, 1, 0, {"alpha": 1.5})
    assert chosen["group"]["alpha"] == 1.5


def test_an_itinerary_row_names_the_briefs_family_where_it_has_no_published_type():
    """People's games on the bundled briefs read "samples" in ItineraryBench's table."""
    from games.npc.tasksets import itinerary_type

    assert itinerary_type("itinerarybench/type3-0042") == "type 3"
    assert itinerary_type("bundled/harbourton-morning") == "bundled briefs"
    assert itinerary_type("studio/my-trip") == "studio briefs"


def test_the_reference_is_the_newest_planner_run_that_covers_the_chosen_runs(tasks_scenarios, researcher, client):
    # a newer planner run of other scenarios (a generated family's) hid the one of the chosen run's
    run = run_json("--agent", "random", "--scenarios", "test/chores1", "test/chores2")
    covering = run_json("--agent", "planner", "--scenarios", "test/*")
    run_json("--agent", "planner", "--scenarios", "test/chores3")  # newer, of another scenario
    client.force_login(researcher)
    url = reverse("games:benchmark_compare", args=["tasks"])
    page = client.get(url, {"run": [run.pk]}).content.decode()
    assert f"Reference plan (planner, run #{covering.pk})" in page
    assert "Play the reference plan on these episodes" not in page
    # a run no planner run covers: no reference row, and the button that makes one
    other = run_json("--agent", "random", "--scenarios", "test/*", "--tasks", "2")  # pairs
    page = client.get(url, {"run": [other.pk]}).content.decode()
    assert "Reference plan (planner" not in page and "Play the reference plan on these episodes" in page
    # once one is under way, its page instead of a second one
    made = comparison.reference_run("tasks", [other])
    page = client.get(url, {"run": [other.pk]}).content.decode()
    assert f"Run #{made.pk}</a> plays the reference plan on these episodes (queued)" in page
    assert "Play the reference plan on these episodes</button>" not in page


def test_with_no_run_chosen_people_are_those_on_the_reference_plans_scenarios(tasks_scenarios, participant):
    # the default view set "Reference plan" on one scenario beside people's games on another
    reference = run_json("--agent", "planner", "--scenarios", "test/chores3")
    play_as_person("test/chores1", participant, moves=50)
    view = comparison.compare("tasks", [])
    assert [source["kind"] for source in view["sources"]] == ["reference"] and view["reference"] == reference
    assert view["instances"] == 1
    play_as_person("test/chores3", participant, moves=50)
    people = [s for s in comparison.compare("tasks", [])["sources"] if s["kind"] == "human"]
    assert len(people) == 1 and people[0]["episodes"] == 1  # the game on chores3 only


def test_the_by_scenario_table_writes_options_in_words():
    # it read "Omelette (time_constraints False)"
    def row(options: dict) -> dict:
        item = {"key": "bundled/omelette", "scenarios": ["bundled/omelette"], "options": options, "agents": 2}
        return {"item": item, "curve": [[0, 0.0], [5, 50.0]]}

    table = comparison.by_scenario([{"label": "planner"}], [[row({"time_constraints": False})]], {})
    assert [line["name"] for line in table["rows"]] == ["bundled/omelette (without time constraints · 2 agents)"]
    table = comparison.by_scenario([{"label": "planner"}], [[row({"alpha": 1.5, "time_constraints": True})]], {})
    assert table["rows"][0]["name"] == "bundled/omelette (alpha 1.5, with time constraints · 2 agents)"


def test_a_run_of_one_episode_says_episode(tasks_scenarios, researcher, client):
    from games.npc import benchmarks
    from games.npc.tasksets import build_items

    run = benchmarks.create_run("tasks", "random", build_items("tasks", patterns=["test/chores1"]))
    client.force_login(researcher)
    assert "0 of 1 episode." in client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    compare = client.get(reverse("games:benchmark_compare", args=["tasks"])).content.decode()
    assert "Queued, 1 episode</span>" in compare
