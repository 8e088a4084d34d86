"""A real browser (Playwright + Debian's chromium) through the participant's pages with the keyboard,
and the researcher's designer and analysis pages. Screenshots go to var/screenshots/studies/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from games import services as game_services
from studies.models import EpisodeStatus, Participant, ParticipantStatus
from studies.tests.factories import completed_participant

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def shots() -> Path:
    path = Path(settings.VAR_DIR) / "screenshots" / "studies"
    path.mkdir(parents=True, exist_ok=True)
    return path


def researchers_page(browser, live_server):
    """A page signed in as the researcher (the ``researcher`` fixture's account)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "res")
    page.fill("#id_password", "pw-researcher-1")
    page.get_by_role("button", name="Sign in").click()
    return page


def test_a_participant_takes_part_with_the_keyboard(live_server, browser, make_study, shots):
    study = make_study()
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"{live_server.url}/studies/s/{study.slug}/?pid=KEYS1")
    page.screenshot(path=shots / "participant-consent.png", full_page=True)
    page.get_by_role("button", name="Continue").click()
    assert "tick the box" in page.text_content("[role=alert]")
    page.get_by_label("I have read the information").focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name="Continue").click()
    assert page.text_content("h1") == "Rules"
    page.screenshot(path=shots / "participant-onboarding.png", full_page=True)
    page.keyboard.press("Enter")  # the Continue button has the focus
    page.wait_for_selector("[data-step=episode]")
    page.screenshot(path=shots / "participant-episode.png", full_page=True)
    page.get_by_role("button", name="Start game 1").click()
    participant = Participant.objects.get(external_id="KEYS1")
    game_id = participant.episodes.get(index=0).game_id
    page.wait_for_url(f"**/games/{game_id}/**")  # straight into the game page
    page.screenshot(path=shots / "participant-game.png", full_page=True)

    game_services.finish(game_id, reason="test")
    page.reload()
    page.get_by_role("link", name="Continue the study").click()
    page.wait_for_selector("[data-step=questionnaire]")
    # Answer every statement from the keyboard: Tab into each radio group, arrows pick a value.
    radios = page.locator("input[type=radio][value='3']")
    radios.nth(0).focus()
    page.keyboard.press("ArrowRight")
    page.reload()  # half answered: the answer given is still there (a reload blanked them all)
    page.wait_for_selector("[data-step=questionnaire]")
    page.wait_for_load_state("load")
    assert page.locator("input[type=radio][value='4']").nth(0).is_checked()
    assert not page.locator("input[type=radio][value='4']").nth(1).is_checked()
    for k in range(1, radios.count()):
        radios.nth(k).focus()
        page.keyboard.press("ArrowRight")
    page.screenshot(path=shots / "participant-questionnaire.png", full_page=True)
    page.get_by_role("button", name="Continue to game 2").click()
    page.wait_for_selector("[data-step=episode]")
    episode = participant.episodes.get(index=0)
    assert episode.status == EpisodeStatus.DONE
    assert set(episode.responses.values_list("value", flat=True)) == {4}


def test_a_researcher_adds_a_condition_and_reads_the_analysis(live_server, browser, make_study, researcher, shots):
    study = make_study()
    for k in range(4):
        completed_participant(
            study,
            f"P{k}",
            progress_by_condition={"Alone": 40.0 + 5 * k, "Random NPC": 60.0 + 3 * k},
            answer_by_condition={"Alone": 2 + k % 2, "Random NPC": 4 + k % 2},
        )
    page = researchers_page(browser, live_server)
    page.goto(f"{live_server.url}/studies/")
    page.get_by_label("Title").fill("Browser-made study")
    page.get_by_role("button", name="Create study").click()
    page.get_by_label("Name", exact=True).fill("Two LLM NPCs")
    page.get_by_label("Teammates", exact=True).select_option("llm")
    page.get_by_label("How many NPCs").fill("2")
    page.get_by_label("Hints", exact=True).fill("Put the kettle on first.")
    page.get_by_role("button", name="Add condition").click()
    assert "Added the condition" in page.text_content(".messages")
    assert "2 × LLM" in page.text_content("#conditions")
    assert "hints “Put the kettle on first.”" in page.text_content("#conditions")
    page.screenshot(path=shots / "designer.png", full_page=True)
    # A generated family goes in whole, by the keyboard, from the scenario list.
    from games.generators.family import generate
    from games.scenarios import save_generated

    instances = generate("tasks", count=2, seed=8, knobs={"actions": 6}, max_seconds=1)
    save_generated("tasks", instances)
    page.reload()
    family = f"all 2 instances of generated/{instances[0]['family']}-* (tasks)"
    page.get_by_label("Scenario", exact=True).select_option(label=family)
    page.get_by_role("button", name="Add scenario").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Added 2 scenarios of the family.")
    listed = page.locator("#scenarios table").inner_text()
    assert instances[0]["slug"] in listed and instances[1]["slug"] in listed

    page.goto(f"{live_server.url}/studies/{study.pk}/analysis/")
    assert page.locator("svg.chart").count() == 2
    assert "repeated-measures ANOVA" in page.text_content("main")
    page.screenshot(path=shots / "analysis.png", full_page=True)
    assert all(p.status == ParticipantStatus.COMPLETED for p in study.participants.all())


def test_another_device_continues_with_the_resume_code(live_server, browser, make_study, shots, annotator):
    study = make_study()
    link = f"{live_server.url}/studies/s/{study.slug}/?pid=TWO-DEVICES"
    first = browser.new_context().new_page()
    first.goto(link)
    first.get_by_label("I have read the information").check()
    first.get_by_role("button", name="Continue").click()
    code = first.text_content("#resume-code-value")
    first.screenshot(path=shots / "participant-resume-code.png", full_page=True)

    second = browser.new_context(viewport={"width": 900, "height": 700}).new_page()
    second.goto(link)
    second.wait_for_selector("[data-step=resume]")
    second.get_by_label("Resume code").fill("WRNG-CODE")
    second.keyboard.press("Enter")
    second.wait_for_selector("[role=alert]")
    assert "does not match" in second.text_content("[role=alert]")
    second.screenshot(path=shots / "participant-resume-wrong.png", full_page=True)
    second.get_by_label("Resume code").fill(code.lower())
    second.keyboard.press("Enter")
    second.wait_for_selector("[data-step=onboarding]")
    assert second.text_content("h1") == "Rules"  # where the first device was

    # Someone signed in with their own account is told to use a private window, and stays signed in.
    own = browser.new_context().new_page()
    own.goto(f"{live_server.url}/accounts/login/")
    own.fill("#id_username", "ann")
    own.fill("#id_password", "pw-annotator-1")
    own.get_by_role("button", name="Sign in").click()
    own.wait_for_url("**/")
    own.goto(link)
    own.wait_for_selector("[data-step=signed-in]")
    own.screenshot(path=shots / "participant-signed-in.png", full_page=True)
    assert Participant.objects.count() == 1


def test_a_participant_without_an_id_comes_back_with_the_code(live_server, browser, make_study, shots):
    # such a participation was lost for good (cookies cleared, another browser): the code was asked
    # for only with a participant id. A participant's header has no Sign out (it led away from the
    # study); the cookies go as a browser clears them.
    study = make_study()
    link = f"{live_server.url}/studies/s/{study.slug}/"
    context = browser.new_context()
    page = context.new_page()
    page.goto(link)
    page.get_by_label("I have read the information").check()
    page.get_by_role("button", name="Continue").click()
    page.wait_for_selector("[data-step=onboarding]")
    code = page.text_content("#resume-code-value")
    assert page.get_by_role("button", name="Sign out").count() == 0
    context.clear_cookies()
    page.goto(link)
    page.wait_for_selector("[data-step=consent]")
    page.get_by_role("link", name="Continue with your resume code").click()
    page.wait_for_selector("[data-step=resume]")
    page.screenshot(path=shots / "participant-resume-without-id.png", full_page=True)
    page.keyboard.type(code.lower())  # the code field has the focus
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-step=onboarding]")
    assert page.text_content("h1") == "Rules" and Participant.objects.count() == 1


def test_a_participant_reads_teammate_names_only(live_server, browser, make_study, shots, settings):
    settings.NPC_RETRY_SECONDS = 0
    study = make_study((("Two planner NPCs", "planner", 2),))
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(f"{live_server.url}/studies/s/{study.slug}/?pid=BLINDED")
    page.get_by_label("I have read the information").check()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start game 1").click()
    page.wait_for_url("**/games/**")
    page.screenshot(path=shots / "participant-blinded-game.png", full_page=True)
    text = page.text_content("body")
    assert "Teammate 1" in text and "Teammate 2" in text
    assert "planner" not in text.lower() and "NPC" not in text


def test_a_prolific_participant_finishes_on_the_completion_redirect(live_server, browser, make_study, shots):
    study = make_study((("Alone", "none", 0),), pages=False)
    study.completion_code = "C1A2B3"
    study.completion_url = f"{live_server.url}/healthz?cc={{code}}"  # stands in for Prolific's page
    study.save()
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    page.goto(f"{live_server.url}/studies/s/{study.slug}/?PROLIFIC_PID=PRO1&STUDY_ID=S1&SESSION_ID=SE1")
    page.get_by_label("I have read the information").check()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start game 1").click()
    participant = Participant.objects.get(external_id="PRO1")
    assert participant.entry_params == {"STUDY_ID": "S1", "SESSION_ID": "SE1"}
    game_services.finish(participant.episodes.get(index=0).game_id, reason="test")
    page.goto(f"{live_server.url}/studies/s/{study.slug}/step/")
    radios = page.locator("input[type=radio][value='4']")
    for k in range(radios.count()):
        radios.nth(k).check()
    page.get_by_role("button", name="Finish").click()
    page.wait_for_selector("[data-step=complete]")
    page.screenshot(path=shots / "participant-completion-redirect.png", full_page=True)
    page.wait_for_url("**/healthz?cc=C1A2B3", timeout=10_000)  # the meta refresh took them there


def test_the_researcher_messages_a_participant_from_the_monitor(live_server, browser, make_study, shots):
    from studies import services

    study = make_study()
    participant = services.give_consent(services.join(study, external_id="MON1"))
    page = researchers_page(browser, live_server)
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.get_by_text("Message", exact=True).click()
    page.get_by_label(f"Message to {participant.code}").fill("Your next game starts soon.")
    page.screenshot(path=shots / "monitor-message.png", full_page=True)
    page.get_by_role("button", name="Send").click()
    page.wait_for_selector("text=Sent your message")
    participant.refresh_from_db()
    assert participant.researcher_message == "Your next game starts soon."
    assert page.get_by_role("button", name=f"End participation of {participant.code}").is_visible()


def test_the_researcher_releases_a_taken_participant_id_from_the_monitor(live_server, browser, make_study, shots):
    study = make_study()
    link = f"{live_server.url}/studies/s/{study.slug}/?pid=OWNER9"
    squatter = browser.new_page()  # each page its own browser session
    squatter.goto(link)
    squatter.get_by_label("I have read the information").check()
    squatter.get_by_role("button", name="Continue").click()
    squatter.wait_for_selector("h1:text('Rules')")
    owner = browser.new_page()
    owner.goto(link)
    assert owner.text_content("h1") == "Continue your participation"

    page = researchers_page(browser, live_server)
    page.goto(f"{live_server.url}/studies/{study.pk}/monitor/")
    page.get_by_text("Release id", exact=True).focus()
    page.keyboard.press("Enter")  # opens the box
    page.screenshot(path=shots / "monitor-release.png", full_page=True)
    page.keyboard.press("Tab")  # to its button
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Released OWNER9: its link now starts a new participation")
    assert "id OWNER9 released by the researcher" in page.text_content("table")

    squatter.reload()
    assert "participation has ended" in squatter.text_content("main")
    owner.reload()
    assert owner.text_content("h1") == "Before you start"
    owner.get_by_label("I have read the information").check()
    owner.get_by_role("button", name="Continue").click()
    owner.wait_for_selector("h1:text('Rules')")
    assert Participant.objects.filter(external_id="OWNER9", status=ParticipantStatus.ACTIVE).count() == 1
    assert Participant.objects.filter(status=ParticipantStatus.DROPPED, external_id="").count() == 1


def test_two_participants_meet_in_the_lobby_and_go_to_one_game(live_server, browser, toy_scenario, researcher, shots):
    from studies import services
    from studies.models import PageKind, StudyStatus

    study = services.create_study(title="Together", created_by=researcher, design="between")
    services.add_condition(study, name="Pair", npc_kind="none", npc_count=0, human_count=2, lobby_timeout_seconds=600)
    services.add_scenario(study, toy_scenario)
    services.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="Do the chores together.")
    services.set_status(study, StudyStatus.OPEN)

    pages = []
    for pid in ("PAIR_A", "PAIR_B"):
        page = browser.new_context(viewport={"width": 1366, "height": 800}).new_page()
        page.goto(f"{live_server.url}/studies/s/{study.slug}/?PROLIFIC_PID={pid}")
        page.get_by_label("I have read the information").check()
        page.get_by_role("button", name="Continue").click()
        page.wait_for_selector("[data-step=onboarding]")
        page.keyboard.press("Enter")  # onboarding: Continue has the focus
        page.wait_for_selector("[data-step=episode]")
        pages.append(page)

    first, second = pages
    first.get_by_role("button", name="Start game 1").focus()
    first.keyboard.press("Enter")
    first.wait_for_selector("[data-step=lobby]")
    status = first.text_content("[role=status].lobby-status") or ""
    assert "Waiting for 1 more participant" in " ".join(status.split())
    assert "Participant 1" in first.text_content(".lobby-seats") and "PAIR_A" not in first.content()
    first.wait_for_timeout(2500)  # one HTMX refresh: the countdown goes on
    first.screenshot(path=shots / "participant-lobby.png", full_page=True)

    second.get_by_role("button", name="Start game 1").click()
    episode = Participant.objects.get(external_id="PAIR_B").episodes.get()
    second.wait_for_url(f"**/games/{episode.game_id}/**")
    first.wait_for_url(f"**/games/{episode.game_id}/**", timeout=10_000)  # the lobby sends them there
    first.screenshot(path=shots / "participant-shared-game.png", full_page=True)
    assert Participant.objects.get(external_id="PAIR_A").episodes.get().game_id == episode.game_id
