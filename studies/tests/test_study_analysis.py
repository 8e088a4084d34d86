"""The analysis page's numbers, from stored episodes and answers, equal statsmodels on the same data."""

from __future__ import annotations

import pandas as pd
import pytest
from django.urls import reverse
from statsmodels.stats.anova import AnovaRM

from studies import selectors, services
from studies.tests.factories import completed_participant, generated_study, play_with_the_planner

pytestmark = pytest.mark.django_db

PROGRESS = [  # per participant: Alone, Random NPC
    (50.0, 70.0),
    (40.0, 65.0),
    (60.0, 72.0),
    (45.0, 80.0),
]
ANSWERS = [(2, 4), (3, 4), (2, 5), (3, 3)]


def build(make_study):
    study = make_study()
    for k, ((alone, random), (a1, a2)) in enumerate(zip(PROGRESS, ANSWERS, strict=True)):
        completed_participant(
            study,
            f"P{k}",
            progress_by_condition={"Alone": alone, "Random NPC": random},
            answer_by_condition={"Alone": a1, "Random NPC": a2},
        )
    return study


def test_objective_scores_and_constructs_match_anovarm(make_study):
    study = build(make_study)
    result = selectors.study_analysis(study)
    assert result.conditions == ["Alone", "Random NPC"]
    assert result.n_participants == 4 and result.n_episodes == 8
    (progress,) = result.objective
    assert [g.mean for g in progress.groups] == pytest.approx([48.75, 71.75])
    frame = pd.DataFrame(
        [(k, c, v) for k, row in enumerate(PROGRESS) for c, v in zip(("Alone", "Random NPC"), row, strict=True)],
        columns=["s", "c", "y"],
    )
    expected = AnovaRM(frame, "y", "s", within=["c"]).fit().anova_table.loc["c"]
    assert progress.anova.f == pytest.approx(expected["F Value"])
    assert progress.anova.p == pytest.approx(expected["Pr > F"])

    enjoyment = next(m for m in result.constructs if m.key == "enjoyment")
    # Two enjoyment items, the second reverse-scored: answers a give (a + 6 - a) / 2 = 3 whatever a is.
    assert [g.mean for g in enjoyment.groups] == [3.0, 3.0]
    trust = next(m for m in result.constructs if m.key == "trust")
    assert [g.mean for g in trust.groups] == [2.5, 4.0]
    assert [g.n for g in trust.groups] == [4, 4]


def test_drop_outs_and_pilots_are_excluded_by_default(make_study):
    study = build(make_study)
    dropped = completed_participant(
        study,
        "DROP",
        progress_by_condition={"Alone": 0.0, "Random NPC": 0.0},
        answer_by_condition={"Alone": 1, "Random NPC": 1},
    )
    dropped.status = "dropped"
    dropped.save()
    completed_participant(
        study,
        "PILOT",
        progress_by_condition={"Alone": 0.0, "Random NPC": 0.0},
        answer_by_condition={"Alone": 1, "Random NPC": 1},
        is_pilot=True,
    )
    assert selectors.study_analysis(study).n_participants == 4
    assert selectors.study_analysis(study, include_dropped=True).n_participants == 5
    assert selectors.study_analysis(study, include_dropped=True, include_pilots=True).n_participants == 6


def test_the_analysis_page_shows_statistics_and_charts(client, researcher, make_study):
    study = build(make_study)
    client.force_login(researcher)
    page = client.get(reverse("studies:analysis", args=[study.pk])).content.decode()
    assert "repeated-measures ANOVA" in page
    assert page.count("<svg") == 2  # the objective score and the constructs overview
    assert "paired t-tests, Holm-corrected" in page and "Tukey" not in page  # a within-subject study
    assert "48.75" in page


def test_an_empty_study_says_what_to_do(client, researcher, make_study):
    study = make_study()
    client.force_login(researcher)
    page = client.get(reverse("studies:analysis", args=[study.pk])).content.decode()
    assert "No finished games yet" in page
    services.set_status(study, "closed")


def test_games_on_generated_instances_are_analysed_against_the_certified_optimum(
    client, researcher, django_capture_on_commit_callbacks
):
    """Each finished game on a certified instance counts its makespan over the optimum; a condition
    that dawdles reads further from 1."""
    from statistics import fmean

    study, instance = generated_study(researcher, conditions=("Brisk", "Dawdling"), design="between")
    expected = {"Brisk": [], "Dawdling": []}
    for k in range(4):
        player = services.give_consent(services.join(study, external_id=f"P{k}"))
        episode = player.episodes.get(index=0)
        condition = episode.condition.name
        with django_capture_on_commit_callbacks(execute=True):  # the episode hears that its game ended
            game = play_with_the_planner(player, episode, waits=3 if condition == "Dawdling" else 0)
        expected[condition].append(game.result["completion_time"] / instance["optimal_makespan"])
    (measure,) = [m for m in selectors.study_analysis(study).objective if m.key == "tasks.optimum_ratio"]
    means = {group.condition: group.mean for group in measure.groups}
    assert means == pytest.approx({name: fmean(values) for name, values in expected.items()}, abs=1e-3)
    assert 1 <= means["Brisk"] < means["Dawdling"]
    client.force_login(researcher)
    page = client.get(reverse("studies:analysis", args=[study.pk])).content.decode()
    assert "Makespan over the certified optimum" in page


def test_constructs_nobody_answered_are_named_once_not_drawn_empty(client, researcher, make_study):
    # a study played alone never asks the questions about teammates: its page drew six empty bars
    # and six "no data yet" tables under the one construct that had answers
    from studies.models import Response

    study = build(make_study)
    Response.objects.filter(episode__participant__study=study, item__needs_teammates=True).delete()
    client.force_login(researcher)
    page = client.get(reverse("studies:analysis", args=[study.pk])).content.decode()
    labels = dict(study.items.filter(needs_teammates=True).values_list("construct", "construct_label"))
    assert labels and "enjoyment" not in labels
    assert "<h3>Perceived enjoyment</h3>" in page and "one-construct" in page
    for label in labels.values():
        assert f"<h3>{label}</h3>" not in page
    named = ", ".join(m.label for m in selectors.study_analysis(study).constructs if m.key in labels)
    assert f"Asked only after games with teammates, no answers yet: {named}." in page
    assert "No answers yet:" not in page

    Response.objects.filter(episode__participant__study=study).delete()
    page = client.get(reverse("studies:analysis", args=[study.pk])).content.decode()
    assert page.count("<svg") == 1  # the objective score's; no constructs chart without answers
    assert "No answers yet: Perceived enjoyment." in page
