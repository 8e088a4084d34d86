"""An "LLM teammate" whose model calls all failed played no part, and nothing said so (the participant
read "(I cannot act right now.)", the Analysis tab showed the condition's means with no warning):
the episodes export counts each episode's NPC calls and failed calls, and the analysis warns per
condition and can leave those episodes out."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import services as game_services
from studies import exports, selectors
from studies.tests.factories import completed_participant

pytestmark = pytest.mark.django_db

CONDITIONS = (("Alone", "none", 0), ("LLM teammate", "llm", 1))


@pytest.fixture
def study(make_study):
    from games.npc.models import LlmCall
    from studies.models import Episode

    study = make_study(CONDITIONS, pages=False)
    for k, failing in enumerate((True, False)):
        participant = completed_participant(
            study,
            f"EXT{k}",
            progress_by_condition={"Alone": 50.0, "LLM teammate": 20.0 if failing else 80.0},
            answer_by_condition={"Alone": 3, "LLM teammate": 2 if failing else 4},
        )
        for episode in participant.episodes.select_related("condition"):
            game = game_services.create_game("test/toy", [{"kind": "human", "user": participant.user}])
            Episode.objects.filter(pk=episode.pk).update(game=game)
            if episode.condition.npc_kind != "llm":
                continue
            for _ in range(3):
                error = "cannot reach http://127.0.0.1:9/v1: Connection error." if failing else ""
                LlmCall.objects.create(
                    game=game,
                    agent="dispatcher",
                    model="m",
                    error=error,
                    reply="" if error else "x",
                    action_seqs=[] if error else [1],
                )
    return study


def test_the_episodes_export_counts_each_episode_s_failed_npc_calls(client, researcher, study):
    client.force_login(researcher)
    response = client.get(reverse("studies:export", args=[study.pk, "episodes", "jsonl"]))
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    counts = sorted((r["participant"], r["condition"], r["npc_calls"], r["npc_calls_failed"]) for r in rows)
    first, second = sorted({r["participant"] for r in rows})
    assert counts == [
        (first, "Alone", 0, 0),
        (first, "LLM teammate", 3, 3),
        (second, "Alone", 0, 0),
        (second, "LLM teammate", 3, 0),
    ]
    names = [c.name for c in exports.TABLES["episodes"].columns(study)]
    assert "npc_calls" in names and "npc_calls_failed" in names  # so the data dictionary describes them
    csv_text = b"".join(
        client.get(reverse("studies:export", args=[study.pk, "episodes", "csv"])).streaming_content
    ).decode()
    assert "npc_calls_failed" in csv_text.splitlines()[0]


def test_the_analysis_warns_per_condition_and_can_leave_those_episodes_out(client, researcher, study):
    client.force_login(researcher)
    page = " ".join(client.get(reverse("studies:analysis", args=[study.pk])).content.decode().split())
    assert "Computer teammates' model calls failed" in page
    assert "LLM teammate: 1 of 2 episodes (in 1 of them no call got an answer)" in page
    assert "They are counted in everything below" in page

    def n_of(result, condition):
        (measure,) = result.objective
        return next(g.n for g in measure.groups if g.condition == condition)

    counted = selectors.study_analysis(study)
    assert n_of(counted, "LLM teammate") == 2 and not counted.failing_npcs_excluded
    left_out = selectors.study_analysis(study, exclude_failing_npcs=True)
    assert n_of(left_out, "LLM teammate") == 1 and n_of(left_out, "Alone") == 2
    assert left_out.failing_npcs_excluded
    ticked = " ".join(
        client.get(reverse("studies:analysis", args=[study.pk]), {"failing_npcs": "0"}).content.decode().split()
    )
    assert "They are left out of everything below, as ticked." in ticked
    assert 'name="failing_npcs" value="0" checked' in ticked


def test_a_teammate_that_answers_but_does_not_act_is_counted_and_warned_of(client, researcher, study):
    """A playtested condition's SmolLM2 teammate answered 20 calls and acted on 3 ("no command
    found", "agent2 is not yours to command"): npc_calls_failed stayed 0 and no warning showed."""
    from games.npc.models import LlmCall
    from studies.models import Episode

    answered = Episode.objects.filter(participant__study=study, condition__npc_kind="llm", game__isnull=False)
    game_id = next(e.game_id for e in answered if not LlmCall.objects.filter(game_id=e.game_id).exclude(error=""))
    for _ in range(4):
        LlmCall.objects.create(game_id=game_id, agent="dispatcher", model="m", reply="You can now command")
    client.force_login(researcher)
    response = client.get(reverse("studies:export", args=[study.pk, "episodes", "jsonl"]))
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    row = next(r for r in rows if r["game_id"] == game_id)
    assert (row["npc_calls"], row["npc_calls_failed"], row["npc_calls_unused"]) == (7, 0, 4)
    page = " ".join(client.get(reverse("studies:analysis", args=[study.pk])).content.decode().split())
    assert "in 1 of 2 most of the model&#x27;s answers were not carried out" in page, page
