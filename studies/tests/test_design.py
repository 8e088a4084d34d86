"""The designer: researchers build a study through the pages; the design freezes once people join."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from studies import services
from studies.errors import StudyError
from studies.forms import StudyBasicsForm
from studies.models import Condition, Participant, ParticipantStatus, QuestionnaireItem, Study

pytestmark = pytest.mark.django_db


def test_only_researchers_see_the_designer(client, participant, make_study):
    study = make_study()
    client.force_login(participant)
    assert client.get(reverse("studies:list")).status_code == 403
    assert client.get(reverse("studies:design", args=[study.pk])).status_code == 403
    assert client.post(reverse("studies:add_condition", args=[study.pk]), {"name": "x"}).status_code == 403


@pytest.fixture
def answering_llm(settings):
    """The default LLM endpoint answers (a scripted stand-in on loopback)."""
    from games.agents.tests.stub_server import stub_endpoint

    with stub_endpoint(lambda messages: "OK") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        yield endpoint


def test_a_researcher_builds_a_study_through_the_pages(client, researcher, toy_scenario, answering_llm):
    client.force_login(researcher)
    response = client.post(reverse("studies:list"), {"title": "Kitchen teammates"})
    study = Study.objects.get()
    assert response["Location"] == reverse("studies:design", args=[study.pk])
    assert study.status == "draft"
    assert study.items.count() == 8  # the default questionnaire: seven constructs
    assert set(study.items.values_list("construct", flat=True)) == {
        "enjoyment",
        "collaboration_fun",
        "assistance",
        "dependability",
        "predictability",
        "productivity",
        "trust",
    }
    add = reverse("studies:add_condition", args=[study.pk])

    def condition(**fields):
        return {f"condition-{key}": value for key, value in fields.items()}

    client.post(add, condition(name="Alone", npc_kind="none", npc_count="0"))
    client.post(add, condition(name="2 LLM", npc_kind="llm", npc_count="2", model="qwen", temperature="0.3"))
    bad = client.post(add, condition(name="Broken", npc_kind="llm", npc_count="0"))
    assert bad.status_code == 400 and "Choose 1 to 4 NPCs" in bad.content.decode()
    assert list(study.conditions.values_list("name", "npc_kind", "npc_count")) == [
        ("Alone", "none", 0),
        ("2 LLM", "llm", 2),
    ]
    llm = study.conditions.get(name="2 LLM")
    assert llm.dispatcher == {"model": "qwen", "temperature": 0.3}
    assert llm.seat_plan(human=researcher)[1] == {"kind": "npc", "dispatcher": "llm", "settings": llm.dispatcher}

    client.post(reverse("studies:add_scenario", args=[study.pk]), {"scenario-scenario": toy_scenario.pk})
    client.post(
        reverse("studies:add_item", args=[study.pk]),
        {"item-construct_label": "Trust", "item-text": "They were honest."},
    )
    trust = study.items.filter(construct="trust")
    assert trust.count() == 2
    item = trust.first()
    client.post(reverse("studies:save_item", args=[study.pk, item.pk]), {"construct_label": "Trust", "text": "Edited."})
    item.refresh_from_db()
    assert item.text == "Edited."

    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert "Alone → 2 LLM" in page and "2 LLM → Alone" in page  # the counterbalanced orders
    # the dispatcher column names an LLM's settings; a condition without an LLM has none to name
    rows = {row.split("</td>")[1].rsplit(">", 1)[-1]: row for row in page.split("<tr>")[2:4]}
    assert "model qwen; temperature 0.3" in rows["2 LLM"] and 'aria-label="no LLM"' in rows["Alone"]
    client.post(reverse("studies:set_status", args=[study.pk]), {"status": "open"})
    study.refresh_from_db()
    assert study.status == "open"


def test_a_study_cannot_open_until_it_is_complete(researcher):
    study = services.create_study(title="Empty", created_by=researcher)
    with pytest.raises(StudyError, match="Add at least one condition"):
        services.set_status(study, "open")


def test_a_study_does_not_open_while_an_llm_condition_gets_no_answer(make_study, settings, researcher, client):
    from games.agents.tests.stub_server import stub_endpoint

    study = make_study((("Alone", "none", 0), ("LLM helper", "llm", 1)))  # opened while the stub answered
    services.set_status(study, "draft")
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    with pytest.raises(StudyError, match="Condition “LLM helper”: the LLM endpoint “default”") as refused:
        services.set_status(study, "open")
    assert ".." not in str(refused.value)  # one sentence end, not the client's and ours ("Connection error..")
    client.force_login(researcher)
    page = client.post(reverse("studies:set_status", args=[study.pk]), {"status": "open"}, follow=True)
    assert "LLM helper" in page.content.decode() and "did not answer" in page.content.decode()
    study.refresh_from_db()
    assert study.status == "draft"
    with stub_endpoint(lambda messages: "OK") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        services.set_status(study, "open")
        assert len(endpoint.requests) == 1  # one probe per endpoint and model
    study.refresh_from_db()
    assert study.status == "open"


def test_the_design_freezes_once_participants_join(make_study):
    study = make_study()
    services.give_consent(services.join(study, external_id="P1"))
    for change in (
        lambda: services.add_condition(study, name="More", npc_kind="random", npc_count=1),
        lambda: services.remove_condition(study.conditions.first()),
        lambda: services.reset_questionnaire(study),
        lambda: services.remove_item(study.items.first()),
    ):
        with pytest.raises(StudyError, match="already joined"):
            change()
    assert study.conditions.count() == 2


def test_pilot_data_can_be_deleted_to_unfreeze_the_design(make_study):
    study = make_study()
    services.set_status(study, "draft")
    services.give_consent(services.join(study, is_pilot=True))
    assert services.design_locked(study)
    assert services.delete_pilot_data(study) == 1
    assert not services.design_locked(study)
    services.add_condition(study, name="More", npc_kind="random", npc_count=1)


def test_removing_a_condition_renumbers_the_rest(make_study):
    study = make_study([("A", "none", 0), ("B", "random", 1), ("C", "random", 2)])
    services.set_status(study, "draft")
    services.remove_condition(study.conditions.get(name="A"))
    assert list(study.conditions.order_by("index").values_list("index", "name")) == [(0, "B"), (1, "C")]


def test_orders_are_counterbalanced_across_participants_and_refill_after_drop_outs(make_study):
    study = make_study([("A", "none", 0), ("B", "random", 1), ("C", "random", 2), ("D", "random", 3)])
    people = [services.give_consent(services.join(study, external_id=f"P{i}")) for i in range(4)]
    orders = [p.assignment.condition_order for p in people]
    assert sorted(map(tuple, orders)) == sorted(map(tuple, [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]))
    services.drop_out(people[2], reason="test")
    newcomer = services.give_consent(services.join(study, external_id="P9"))
    assert newcomer.assignment.sequence == people[2].assignment.sequence
    assert [e.condition.name for e in newcomer.episodes.order_by("index")] == [
        "ABCD"[i] for i in newcomer.assignment.condition_order
    ]


def test_between_subject_gives_each_participant_one_condition_in_turn(make_study):
    study = make_study([("A", "none", 0), ("B", "random", 1)], design="between")
    people = [services.give_consent(services.join(study, external_id=f"P{i}")) for i in range(4)]
    assert [p.assignment.condition_order for p in people] == [[0], [1], [0], [1]]
    assert all(p.episodes.count() == 1 for p in people)


def test_consent_twice_keeps_one_assignment(make_study):
    study = make_study()
    participant = services.join(study, external_id="P1")
    services.give_consent(participant)
    services.give_consent(participant)
    assert participant.episodes.count() == 2
    assert Participant.objects.get().status == ParticipantStatus.ACTIVE


def test_researcher_marks_a_participant_dropped_from_the_monitor(client, researcher, make_study):
    study = make_study()
    participant = services.give_consent(services.join(study, external_id="GONE"))
    client.force_login(researcher)
    page = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert "GONE" in page and "Introduction 1/1" in page
    client.post(reverse("studies:drop", args=[study.pk, participant.pk]), {"reason": "no response"})
    participant.refresh_from_db()
    assert participant.status == ParticipantStatus.DROPPED and participant.drop_reason == "no response"


def test_the_monitor_shows_participants_a_page_at_a_time_in_a_bounded_number_of_queries(
    client, researcher, make_study, django_assert_max_num_queries
):
    """A 400-participant study's monitor drew every row every 5 s (2.5 s and 570 KB a time, two
    queries per participant); it shows 50 a page, newest first, and a status filter."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from studies.views.monitor import PARTICIPANTS_PER_PAGE

    study = make_study()
    for i in range(PARTICIPANTS_PER_PAGE + 5):
        participant = services.give_consent(services.join(study, external_id=f"X{i:03d}"))
        if i < 3:
            services.drop_out(participant, reason="test")
    client.force_login(researcher)
    url = reverse("studies:monitor", args=[study.pk])
    with CaptureQueriesContext(connection) as few:
        client.get(url, {"status": "dropped"})
    with django_assert_max_num_queries(len(few.captured_queries) + 2):  # 50 rows cost what 3 do
        first = client.get(url).content.decode()
    assert "<code>X054</code>" in first and "<code>X005</code>" in first  # newest first, 50 of 55
    assert "<code>X004</code>" not in first
    assert f"1–{PARTICIPANTS_PER_PAGE} of {PARTICIPANTS_PER_PAGE + 5}, newest first" in first
    second = client.get(url, {"page": 2}).content.decode()
    assert "<code>X004</code>" in second and "<code>X000</code>" in second and "<code>X054</code>" not in second
    dropped = client.get(url, {"status": "dropped"}).content.decode()
    assert "<code>X000</code>" in dropped and "<code>X002</code>" in dropped and "1–3 of 3" in dropped
    assert "<code>X003</code>" not in dropped
    assert "No participant is completed." in client.get(url, {"status": "completed"}).content.decode()


def test_the_monitor_lists_the_longest_running_games_and_counts_them_all(client, researcher, make_study, monkeypatch):
    from studies.views import monitor

    study = make_study(pages=False)
    for i in range(4):
        participant = services.give_consent(services.join(study, external_id=f"R{i}"))
        services.start_episode(participant, participant.episodes.get(index=0))
    client.force_login(researcher)
    monkeypatch.setattr(monitor, "RUNNING_SHOWN", 3)
    page = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert '<span class="stat-value">4</span><span class="stat-label">games running</span>' in page
    running = page[page.index("<h2>Running games</h2>") : page.index('<h2 id="participants">')]
    assert running.count("Watch live") == 0 and "The 3 running longest are listed, of 4." in running
    # the link names the site's game: "Game 2" (the episode) sat beside a link to game 13
    watched = re.findall(r'href="/games/(\d+)/[^"]*">Watch game (\d+) live</a>', running)
    assert len(watched) == 3 and all(url == said for url, said in watched), watched
    assert "<th title=" in running and ">Their game</th>" in running


def test_condition_validation_names_the_fix(make_study):
    study = make_study()
    services.set_status(study, "draft")
    with pytest.raises(StudyError, match="1 to 4"):
        services.add_condition(study, name="Too many", npc_kind="llm", npc_count=5)
    with pytest.raises(StudyError, match="already a condition"):
        services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
    assert Condition.objects.filter(study=study).count() == 2
    assert QuestionnaireItem.objects.filter(study=study).count() == 8


def test_a_researcher_messages_a_participant_on_their_page_and_in_their_game(client, researcher, make_study):
    from importlib import import_module

    from django.apps import apps
    from django.test import Client

    from games.models import GameEvent

    study = make_study()
    player = Client()
    entry = reverse("studies:entry", args=[study.slug])
    step = reverse("studies:step", args=[study.slug])
    player.post(entry, {"pid": "MSG", "choice": "agree", "agree": "1"})
    player.post(step, {"action": "onboarding", "index": "0"})
    player.post(step, {"action": "start", "index": "0"})
    participant = Participant.objects.get()
    client.force_login(researcher)
    url = reverse("studies:message", args=[study.pk, participant.pk])
    assert client.post(url, {"text": "   "}, follow=True).status_code == 200  # refused with a message
    assert not Participant.objects.get().researcher_message
    client.post(url, {"text": "Please keep going, about 5 minutes left."})
    page = player.get(step).content.decode()
    assert 'id="researcher-message"' in page and "about 5 minutes left" in page
    game_id = participant.episodes.get(index=0).game_id
    chat = GameEvent.objects.filter(game_id=game_id, category="chat").values_list("data__text", flat=True)
    assert "Message from the researcher: Please keep going, about 5 minutes left." in list(chat)
    # the game's messages show it as sent by nobody at the table (it read "agent None: Message ...")
    game_page = player.get(reverse("games:play", args=[game_id])).content.decode()
    assert "Message from the researcher: Please keep going" in game_page and "agent None" not in game_page
    # and a message stored that way before is read the same once migrated (by the researcher: a
    # blinded participant's page names no sender of a chat at all)
    entry = GameEvent.objects.get(game_id=game_id, category="chat")
    GameEvent.objects.filter(pk=entry.pk).update(data={**entry.data, "from": "agent None"})
    assert "agent None" not in player.get(reverse("games:play", args=[game_id])).content.decode()
    assert "agent None" in client.get(reverse("games:play", args=[game_id])).content.decode()
    import_module("games.migrations.0009_chat_from_nobody").unname(apps, None)
    assert "agent None" not in client.get(reverse("games:play", args=[game_id])).content.decode()
    assert Client().post(url, {"text": "spoof"}).status_code in (302, 403)  # only researchers
    assert Participant.objects.get().researcher_message == "Please keep going, about 5 minutes left."


def test_a_generated_family_is_added_to_a_study_in_one_go(client, researcher, make_study):
    from games.generators.family import family_of, generate
    from games.scenarios import save_generated, save_scenario

    instances = generate("tasks", count=2, seed=4, knobs={"actions": 6}, max_seconds=1)
    save_generated("tasks", instances)
    family = instances[0]["family"]
    # Named like a family member but not generated: never swept in.
    save_scenario(
        domain="tasks",
        slug=f"studio/{family}-009",
        title="look-alike",
        source="studio",
        definition=instances[0]["definition"],
    )
    assert family_of(instances[1]["slug"]) == family and family_of(f"studio/{family}-009") is None
    study = make_study()
    client.force_login(researcher)
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert f"all 2 instances of generated/{family}-* (tasks)" in page and 'optgroup label="Generated families"' in page

    add = reverse("studies:add_scenario", args=[study.pk])
    done = client.post(add, {"scenario-scenario": f"family:{family}"}, follow=True).content.decode()
    assert "Added 2 scenarios of the family." in done
    before = list(study.study_scenarios.order_by("index").values_list("scenario__slug", flat=True))
    assert before[-2:] == [instances[0]["slug"], instances[1]["slug"]]
    again = client.post(add, {"scenario-scenario": f"family:{family}"}, follow=True).content.decode()
    assert "Added 0 scenarios of the family; 2 were already in the study." in again
    assert list(study.study_scenarios.order_by("index").values_list("scenario__slug", flat=True)) == before
    bad = client.post(add, {"scenario-scenario": "family:no-such-family"})
    assert bad.status_code == 400 and list(study.study_scenarios.values_list("scenario__slug", flat=True)) == before


def test_a_condition_can_hold_its_llm_teammates_to_legal_actions(client, researcher, make_study):
    study = make_study()
    client.force_login(researcher)
    add = reverse("studies:add_condition", args=[study.pk])
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert "Hold LLM replies to legal actions" in page
    client.post(
        add,
        {
            "condition-name": "Held",
            "condition-npc_kind": "llm",
            "condition-npc_count": "1",
            "condition-constrained": "on",
        },
    )
    client.post(add, {"condition-name": "Free", "condition-npc_kind": "llm", "condition-npc_count": "1"})
    assert study.conditions.get(name="Held").dispatcher == {"prompt": {"constrained": True}}
    assert "prompt" not in study.conditions.get(name="Free").dispatcher


def test_study_texts_and_numbers_are_bounded_with_what_to_do(client, researcher, make_study):
    """A 2 MB consent text or onboarding page was saved and shown whole to every participant; a
    backfill delay of 10^19 s was refused with the database's integer range as the message."""
    from django.forms.models import model_to_dict

    from studies.forms import PAGE_TEXT_MAX

    study = make_study()
    client.force_login(researcher)
    basics = reverse("studies:save_basics", args=[study.pk])
    fields = {k: ("" if v is None else v) for k, v in model_to_dict(study, fields=StudyBasicsForm.Meta.fields).items()}
    fields["show_optimum"] = ""
    cases = {
        "consent_text": ("y" * (PAGE_TEXT_MAX + 1), f"at most {PAGE_TEXT_MAX} characters"),
        "backfill_after_seconds": ("99999999999999999999", "less than or equal to 3600"),
        "attention_max_failures": ("101", "less than or equal to 100"),
    }
    for name, (value, message) in cases.items():
        response = client.post(basics, {**fields, name: value})
        assert response.status_code == 400 and message in response.content.decode(), name
    study.refresh_from_db()
    assert len(study.consent_text) < PAGE_TEXT_MAX and study.backfill_after_seconds == 60
    assert client.post(basics, {**fields, "backfill_after_seconds": "3600"}).status_code == 302
    # a recipe second every 1/40 s (a bundled pair's own pace) can be written too; 0.05 s was the least
    assert client.post(basics, {**fields, "seconds_per_time_unit": "0.025"}).status_code == 302
    pages = reverse("studies:add_page", args=[study.pk])
    long_page = client.post(pages, {"page-kind": "text", "page-title": "Rules", "page-body": "z" * (PAGE_TEXT_MAX + 1)})
    assert long_page.status_code == 400 and f"at most {PAGE_TEXT_MAX} characters" in long_page.content.decode()
    assert study.onboarding_pages.count() == 1


def test_the_monitor_tells_a_game_waiting_for_its_participants_start(client, researcher, make_study):
    study = make_study(pages=False, clock_mode="real_time")
    participant = services.give_consent(services.join(study, external_id="READER"))
    episode = participant.episodes.get(index=0)
    services.start_episode(participant, episode)
    client.force_login(researcher)
    page = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert "reading, not started" in page and "paused (ready)" not in page
    episode.refresh_from_db()
    from games import services as game_services

    game_services.start(episode.game_id, by=participant.user)
    page = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    assert "reading, not started" not in page


def test_the_design_page_gives_a_plain_link_beside_the_panels(client, researcher, make_study):
    study = make_study()
    client.force_login(researcher)
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    panel = re.search(r'id="link-panel" type="text" readonly value="([^"]+)"', page).group(1)
    plain = re.search(r'id="link-plain" type="text" readonly value="([^"]+)"', page).group(1)
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}" in html.unescape(panel)
    assert "?" not in plain and html.unescape(panel).startswith(plain)
    client.logout()
    # opened as it is, the panel's link is refused (its placeholder is no id); the plain one works
    assert client.get(html.unescape(panel)).status_code == 400
    joined = client.get(plain)
    assert joined.status_code == 200 and "I have read the information" in joined.content.decode()


def test_a_draft_with_the_default_consent_is_reminded_to_check_it(client, researcher):
    study = services.create_study(title="Fresh", created_by=researcher)
    client.force_login(researcher)
    reminder = "The consent text is still the default one"
    assert reminder in client.get(reverse("studies:design", args=[study.pk])).content.decode()
    study.consent_text = "A ten-minute study about games. By agreeing you confirm you are 18 or older."
    study.save()
    assert reminder not in client.get(reverse("studies:design", args=[study.pk])).content.decode()


def test_a_new_llm_condition_holds_its_replies_to_legal_actions_unless_unticked(client, researcher, make_study):
    """Unticked by default, a playtested study's bundled SmolLM2 teammate carried out 0-3 commands in
    60 steps (its free answers seldom name an action); the new-game form has it ticked."""
    import re

    study = make_study()
    client.force_login(researcher)
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    box = re.search(r'<input[^>]*name="condition-constrained"[^>]*>', page)
    assert box and "checked" in box.group(0), box
