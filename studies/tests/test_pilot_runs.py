"""Pilots started from the design page: who may start them, what is refused (and changes nothing),
what a restart leaves, and how each pilot's outcome reads. (They play a real server in
``test_browser_pilots.py``.)"""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies import pilot_runs
from studies.models import PilotRun, PilotRunStatus

pytestmark = pytest.mark.django_db


def _run(client, study, participants):
    return client.post(reverse("studies:run_pilots", args=[study.pk]), {"participants": participants}, follow=True)


def test_a_researcher_queues_pilots_and_bad_requests_change_nothing(
    client, researcher, participant, make_study, django_capture_on_commit_callbacks
):
    from studies import services

    study = make_study()
    client.force_login(participant)
    assert _run(client, study, "2").status_code == 403
    client.force_login(researcher)
    for bad, said in (("x", "a number from 1 to 8"), ("0", "Run 1 to 8 pilots"), ("9", "Run 1 to 8 pilots")):
        assert said in _run(client, study, bad).content.decode()
    assert not PilotRun.objects.exists()

    with django_capture_on_commit_callbacks(execute=False) as queued:
        page = _run(client, study, "2").content.decode()
    run = PilotRun.objects.get()
    assert len(queued) == 1 and run.status == PilotRunStatus.QUEUED and run.participants == 2
    assert run.base_url == "http://testserver/" and run.requested_by == researcher
    assert "Started 2 pilots" in page and "0 of 2 pilots finished" in page
    assert 'hx-trigger="every 2s"' in page and 'title="Pilots are still running"' in page
    again = _run(client, study, "1").content.decode()
    assert "still running" in again and PilotRun.objects.count() == 1
    # their data is not deleted under them while they play
    services.join(study, external_id=pilot_runs.pilot_id(run.pk, 0), is_pilot=True)
    kept = client.post(reverse("studies:delete_pilots", args=[study.pk]), follow=True).content.decode()
    assert "Pilots are still running; delete their data once they finish." in kept
    assert study.participants.filter(is_pilot=True).count() == 1


def test_a_study_pilots_cannot_play_is_refused(client, researcher):
    from studies import services

    study = services.create_study(title="Empty", created_by=researcher)
    client.force_login(researcher)
    page = _run(client, study, "2").content.decode()
    assert "Pilots cannot play this study yet" in page and not PilotRun.objects.exists()
    design = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert 'title="Fix the points above first">Run pilots' in design


def test_a_run_a_restart_cut_off_is_closed_not_left_running(client, researcher, make_study):
    from studies import services
    from studies.models import ParticipantStatus

    study = make_study()
    cut = PilotRun.objects.create(study=study, participants=2, base_url="http://x/", status=PilotRunStatus.RUNNING)
    halfway = services.give_consent(services.join(study, external_id=pilot_runs.pilot_id(cut.pk, 0), is_pilot=True))
    other = services.give_consent(services.join(study, external_id="pilot-r999-1", is_pilot=True))
    assert pilot_runs.cut_off_runs() == [cut.pk]
    pilot_runs.run(cut.pk)  # what the restarted server queues
    cut.refresh_from_db()
    assert cut.status == PilotRunStatus.FAILED and "server stopped" in cut.error and cut.finished_at
    assert pilot_runs.cut_off_runs() == []
    halfway.refresh_from_db()
    other.refresh_from_db()
    # its pilot drops out (its games stop, nobody is at them); another run's pilot is left alone
    assert halfway.status == ParticipantStatus.DROPPED and "server restart" in halfway.drop_reason
    assert other.status != ParticipantStatus.DROPPED
    client.force_login(researcher)
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert "Stopped" in page and "run them again" in page and 'hx-trigger="every 2s"' not in page
    assert 'title="Pilots are still running"' not in page


def test_each_pilots_outcome_is_shown_and_another_studys_run_is_not(client, researcher, make_study):
    study, other = make_study(), make_study(title="Other")
    good = {"participant": "pilot-1", "completed": True, "completion_code": study.completion_code}
    wrong = {"participant": "pilot-2", "completed": True, "completion_code": "NOPE"}
    stopped = {"participant": "pilot-3", "completed": False, "error": "the server refused the game: no seat"}
    results = [{"episodes": 2, "actions": 9, "seconds": 3.0, "error": "", **r} for r in (good, wrong, stopped)]
    run = PilotRun.objects.create(
        study=study, participants=3, base_url="http://x/", status=PilotRunStatus.DONE, results=results
    )
    client.force_login(researcher)
    html = client.get(reverse("studies:pilot_run", args=[study.pk, run.pk])).content.decode()
    assert "3 of 3 pilots finished · 1 reached the completion code" in html
    assert "wrong code" in html and "NOPE" in html and "no seat" in html
    assert "1 of 3 pilots reached the completion code" in html and "every 2s" not in html
    assert client.get(reverse("studies:pilot_run", args=[other.pk, run.pk])).status_code == 404


def test_the_panel_says_where_each_pilot_is_while_they_play(client, researcher, make_study):
    from studies import services
    from studies.models import Episode, EpisodeStatus

    study = make_study()
    run = PilotRun.objects.create(study=study, participants=2, base_url="http://x/", status=PilotRunStatus.RUNNING)
    playing = services.give_consent(services.join(study, external_id=pilot_runs.pilot_id(run.pk, 0), is_pilot=True))
    services.join(study, external_id=pilot_runs.pilot_id(run.pk, 1), is_pilot=True)  # not consented yet
    services.give_consent(services.join(study, external_id="pilot-r999-1", is_pilot=True))  # another run's
    episodes = list(playing.episodes.order_by("index"))
    assert len(episodes) == 2
    Episode.objects.filter(pk=episodes[0].pk).update(status=EpisodeStatus.DONE)
    Episode.objects.filter(pk=episodes[1].pk).update(status=EpisodeStatus.PLAYING)
    progress, rows = pilot_runs.in_flight(run)
    assert [(r.participant, r.where, r.done) for r in rows] == [
        (f"pilot-r{run.pk}-1", "game 2 of 2", 1),
        (f"pilot-r{run.pk}-2", "consent and onboarding", 0),
    ]
    assert progress == 0.25  # one game of four
    client.force_login(researcher)
    html = client.get(reverse("studies:pilot_run", args=[study.pk, run.pk])).content.decode()
    assert 'aria-valuenow="25"' in html and "game 2 of 2 (1 of 2 games done)" in html


def test_pilots_that_cannot_reach_the_site_say_why(client, researcher, make_study):
    from arena_site.loopback import free_port

    study = make_study()
    nowhere = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    run = PilotRun.objects.create(study=study, participants=2, base_url=nowhere)
    pilot_runs.run(run.pk)
    run.refresh_from_db()
    assert run.status == PilotRunStatus.DONE and len(run.results) == 2 and run.completed == 0
    assert all(not r["completed"] and "refused" in r["error"].lower() for r in run.results), run.results
    client.force_login(researcher)
    html = client.get(reverse("studies:pilot_run", args=[study.pk, run.pk])).content.decode()
    assert "0 of 2 pilots reached the completion code" in html and html.count(">stopped</span>") == 2


def test_each_poll_redraws_the_status_block_and_the_lock_notice_pilots_change(client, researcher, make_study):
    """The design page was drawn before the pilots joined: its counts, "Delete pilot data" and the
    notice that the design is fixed come with each poll of the pilots panel, out of band."""
    from studies import services

    study = make_study()
    run = PilotRun.objects.create(study=study, participants=2, base_url="http://x/", status=PilotRunStatus.RUNNING)
    client.force_login(researcher)
    poll = reverse("studies:pilot_run", args=[study.pk, run.pk])
    before = client.get(poll).content.decode()
    assert '<div id="study-status" hx-swap-oob="true">' in before and "0 active" in before
    assert '<div id="design-lock" hx-swap-oob="true"></div>' in before and "Delete pilot data" not in before
    services.give_consent(services.join(study, external_id=pilot_runs.pilot_id(run.pk, 0), is_pilot=True))
    after = client.get(poll).content.decode()
    assert "0 active" in after and "declined · 1 pilot</p>" in after and "Delete pilot data" in after
    assert "Participants have joined" in after and "delete the pilot data to edit again" in after
    # the page itself draws the same blocks without the out-of-band marker
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert '<div id="study-status">' in page and "hx-swap-oob" not in page.split('id="pilot-panel"')[0]
