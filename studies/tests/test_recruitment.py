"""Recruitment platforms (issue 16): Prolific-style link parameters, the completion and
screened-out redirects with their codes, attention checks, and the bulk-bonus CSV."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from games import services as game_services
from studies import bonus, selectors, services
from studies.forms import StudyBasicsForm
from studies.models import Participant, ParticipantStatus
from studies.tests.factories import completed_participant

pytestmark = pytest.mark.django_db(transaction=True)

PROLIFIC = "?PROLIFIC_PID=5f1e2d3c&STUDY_ID=st-77&SESSION_ID=se-{session}"
COMPLETE = "https://app.prolific.com/submissions/complete?cc={code}"


def prolific_study(make_study, **fields):
    study = make_study(pages=False)
    for name, value in {"completion_code": "C1A2B3", "completion_url": COMPLETE, **fields}.items():
        setattr(study, name, value)
    study.save()
    return study


def play_everything(client, study, participant, answer=4, attention=None):
    step = reverse("studies:step", args=[study.slug])
    for index in range(participant.episodes.count()):
        participant.refresh_from_db()
        if participant.status != ParticipantStatus.ACTIVE:
            break
        client.post(step, {"action": "start", "index": str(index)})
        game_services.finish(participant.episodes.get(index=index).game_id, reason="test")
        answers = {f"item-{item.pk}": str(answer) for item in study.items.all()}
        if attention is not None:
            answers.update({f"item-{i.pk}": str(attention) for i in study.items.filter(attention_answer__isnull=False)})
        client.post(step, {"action": "questionnaire", "index": str(index), **answers})
    return client.get(step).content.decode()


def test_a_prolific_link_is_captured_and_the_finish_redirects_with_the_code(make_study, client):
    study = prolific_study(make_study)
    entry = reverse("studies:entry", args=[study.slug])
    assert 'data-step="consent"' in client.get(entry + PROLIFIC.format(session="A")).content.decode()
    # the consent form carries the id; the other parameters were kept from the link
    client.post(entry, {"pid": "5f1e2d3c", "choice": "agree", "agree": "1"})
    participant = Participant.objects.get()
    assert participant.external_id == "5f1e2d3c"
    assert participant.entry_params == {"STUDY_ID": "st-77", "SESSION_ID": "se-A"}
    page = play_everything(client, study, participant)
    target = "https://app.prolific.com/submissions/complete?cc=C1A2B3"
    assert 'data-step="complete"' in page and f'href="{target}"' in page and f'url={target}"' in page
    assert "C1A2B3" in page  # the code is shown too, in case the redirect is blocked


@pytest.mark.parametrize("kept", ["STUDY_ID,SESSION_ID", "STUDY_ID"])
def test_the_recruiters_session_id_resumes_on_another_device_and_a_wrong_one_does_not(make_study, kept):
    # the session parameter is kept with the participant even when the list of parameters to keep
    # leaves it out (resuming by it then silently did nothing)
    study = prolific_study(make_study, capture_params=kept)
    entry = reverse("studies:entry", args=[study.slug])
    first = Client()
    first.get(entry + PROLIFIC.format(session="A"))
    first.post(entry, {"pid": "5f1e2d3c", "choice": "agree", "agree": "1"})
    same_link = Client().get(entry + PROLIFIC.format(session="A"))
    assert same_link["Location"] == reverse("studies:step", args=[study.slug])
    other_session = Client().get(entry + PROLIFIC.format(session="B"))
    assert 'data-step="resume"' in other_session.content.decode()


def test_a_screened_out_code_without_a_redirect_is_shown_to_whoever_is_screened_out(make_study):
    """The code was used only inside the screened-out redirect: without one, nobody ever saw it."""
    study = prolific_study(make_study, screened_out_code="SCR9")
    entry = reverse("studies:entry", args=[study.slug])
    decliner = Client()
    decliner.get(entry + "?PROLIFIC_PID=no-thanks")
    decliner.post(entry, {"pid": "no-thanks", "choice": "decline"})
    page = decliner.get(reverse("studies:step", args=[study.slug])).content.decode()
    assert 'data-step="declined"' in page and '<code id="screened-out-code">SCR9</code>' in page
    # nothing to go on to: no dashboard or games in the header (declining read as being signed in)
    assert '<nav aria-label="Main">' not in page and "My games" not in page


def test_declining_and_failing_attention_checks_go_to_the_screened_out_redirect(make_study):
    study = prolific_study(
        make_study, screened_out_url="https://app.prolific.com/submissions/complete?cc={code}", screened_out_code="SCR9"
    )
    services.set_status(study, "draft")
    services.save_item(study, construct_label="Attention", text="Please choose Agree here.", attention_answer=4)
    services.set_status(study, "open")
    entry = reverse("studies:entry", args=[study.slug])
    target = "https://app.prolific.com/submissions/complete?cc=SCR9"

    decliner = Client()
    decliner.get(entry + "?PROLIFIC_PID=no-thanks")
    decliner.post(entry, {"pid": "no-thanks", "choice": "decline"})
    page = decliner.get(reverse("studies:step", args=[study.slug])).content.decode()
    assert 'data-step="declined"' in page and f'href="{target}"' in page

    careless = Client()
    careless.get(entry + "?PROLIFIC_PID=careless")
    careless.post(entry, {"pid": "careless", "choice": "agree", "agree": "1"})
    participant = Participant.objects.get(external_id="careless")
    page = play_everything(careless, study, participant, attention=2)
    participant.refresh_from_db()
    assert participant.status == ParticipantStatus.SCREENED and "attention" in participant.drop_reason
    assert 'data-step="screened"' in page and f'href="{target}"' in page and "C1A2B3" not in page
    assert participant.episodes.filter(status="pending").exists()  # screened out after the first game

    careful = Client()
    careful.get(entry + "?PROLIFIC_PID=careful")
    careful.post(entry, {"pid": "careful", "choice": "agree", "agree": "1"})
    page = play_everything(careful, study, Participant.objects.get(external_id="careful"), attention=4)
    assert 'data-step="complete"' in page
    # attention items screen people; they are no construct of the analysis
    constructs = [m.key for m in selectors.study_analysis(study).constructs]
    assert "attention" not in constructs and constructs


def test_bonuses_follow_the_formula_and_export_as_participant_id_amount(make_study, client, researcher):
    study = make_study(pages=False)
    study.bonus_formula = "0.02 * score + 0.5 * (score > 50)"
    study.bonus_cap = Decimal("2.50")
    study.save()
    completed_participant(
        study,
        "PA",
        progress_by_condition={"Alone": 40.0, "Random NPC": 60.0},
        answer_by_condition={"Alone": 3, "Random NPC": 3},
    )
    completed_participant(
        study,
        "PB",
        progress_by_condition={"Alone": 90.0, "Random NPC": 95.0},
        answer_by_condition={"Alone": 3, "Random NPC": 3},
    )
    completed_participant(
        study,
        "PILOT",
        progress_by_condition={"Alone": 90.0, "Random NPC": 95.0},
        answer_by_condition={"Alone": 3, "Random NPC": 3},
        is_pilot=True,
    )
    # PA: 0.8 + (1.2 + 0.5) = 2.50; PB: (1.8 + 0.5) + (1.9 + 0.5) = 4.70, capped at 2.50
    assert bonus.bonus_for(Participant.objects.get(external_id="PA")) == Decimal("2.50")
    study.bonus_cap = None
    study.save()
    client.force_login(researcher)
    response = client.get(reverse("studies:bonuses", args=[study.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.decode().splitlines() == ["participant_id,amount", "PA,2.50", "PB,4.70"]


def test_a_bad_bonus_formula_or_parameter_name_is_refused_with_a_message(make_study):
    study = make_study()
    data = {
        **{f: getattr(study, f) for f in StudyBasicsForm._meta.fields},
        "bonus_formula": "__import__('os').system('true')",
        "capture_params": "STUDY_ID, bad param",
    }
    form = StudyBasicsForm(data, instance=study)
    assert not form.is_valid()
    assert "cannot be evaluated" in str(form.errors["bonus_formula"])
    assert "bad param" in str(form.errors["capture_params"])
    assert StudyBasicsForm({**data, "bonus_formula": "0.1 * score", "capture_params": "A,B"}, instance=study).is_valid()


@pytest.mark.parametrize(
    ("formula", "said"),
    [
        ("10.0**400", "too large to pay"),  # an OverflowError: a server error on saving the study
        ("round(1e308*10)", "too large to pay"),
        ("1e308*10", "finite number (it gave inf)"),  # saved, then the bonus export failed on it
        ("1e308*10 - 1e308*10", "finite number (it gave nan)"),
    ],
)
def test_a_bonus_formula_past_any_amount_is_refused_when_the_study_is_saved(make_study, formula, said):
    study = make_study()
    data = {**{f: getattr(study, f) for f in StudyBasicsForm._meta.fields}, "bonus_formula": formula}
    form = StudyBasicsForm(data, instance=study)
    assert not form.is_valid() and said in str(form.errors["bonus_formula"])


def test_amounts_that_add_up_past_any_float_are_a_message_not_a_server_error(make_study, client, researcher):
    study = make_study(pages=False)
    study.bonus_formula = "1e308 * (score > 10)"  # fine for one episode, not for two
    study.save()
    completed_participant(
        study,
        "PA",
        progress_by_condition={"Alone": 90.0, "Random NPC": 95.0},
        answer_by_condition={"Alone": 3, "Random NPC": 3},
    )
    client.force_login(researcher)
    response = client.get(reverse("studies:bonuses", args=[study.pk]))
    assert response.status_code == 400 and "add up to a number too large to pay" in response.content.decode()
