"""LLM pre-annotation against a scripted OpenAI-compatible server on loopback: strict parsing,
model labels kept apart from people's, precision/recall/F1 against gold, suggestions only when allowed."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.urls import reverse

from annotations import preannotation, selectors, services
from annotations.models import Label, PreannotationRun
from annotations.preannotation import ReplyError, parse_reply
from annotations.reports import model_report
from annotations.tests.factories import make_annotator, make_recipe
from annotations.tests.llm_standin import standin_server
from arena_site import background

STEPS = [0, 1, 2, 3, 4]
PROPS = ["concurrency", "resource"]


def test_parse_reply_accepts_a_fenced_json_list():
    text = '```json\n[{"step": 0, "concurrency": "autonomous", "resource": "oven"}]\n```'
    labels, problems = parse_reply(text, [0], PROPS)
    assert labels == [(0, "concurrency", "autonomous"), (0, "resource", "oven")]
    assert problems == []


@pytest.mark.parametrize(
    "text",
    ["Sure! Step 0 is autonomous.", '{"step": 0}', "[1, 2]", "rm -rf /", ""],
)
def test_parse_reply_refuses_anything_but_a_list_of_steps(text):
    with pytest.raises(ReplyError):
        parse_reply(text, STEPS, PROPS)


def test_parse_reply_drops_bad_parts_and_says_which():
    text = json.dumps(
        [
            {"step": 0, "concurrency": "autonomous", "resource": "oven"},
            {"step": 1, "concurrency": "parallel", "resource": "stove+oven"},
            {"step": 9, "concurrency": "autonomous", "resource": "none"},
            {"step": 0, "concurrency": "continuous", "resource": "none"},
            {"step": 2, "resource": "none"},
        ]
    )
    labels, problems = parse_reply(text, STEPS, PROPS)
    assert labels == [(0, "concurrency", "autonomous"), (0, "resource", "oven"), (2, "resource", "none")]
    assert any("step 1: concurrency label 'parallel'" in p for p in problems)
    assert any("'oven+stove'" in p for p in problems)
    assert any("'step' 9 is not a step" in p for p in problems)
    assert any("step 0: labelled twice" in p for p in problems)
    assert any("step 2: no concurrency label" in p for p in problems)
    assert problems[-1] == "no answer for steps 3, 4"


def _cobbler_for_amy(name: str, properties: list[str] = PROPS):
    """A project of one recipe (Cobbler, five steps) that amy alone labels."""
    return services.create_project(
        name=name,
        recipes=[make_recipe("Cobbler")],
        properties=properties,
        annotators=[make_annotator("amy")],
        annotators_per_item=1,
    )


def _reply_for(truth: dict[int, tuple[str, str]]):
    def reply(body):
        user = body["messages"][-1]["content"]
        if "Recipe: Broken" in user:
            return "I think the first step is autonomous, the others are not."
        return json.dumps([{"step": s, "concurrency": c, "resource": r} for s, (c, r) in truth.items()])

    return reply


@pytest.mark.django_db
def test_run_stores_model_labels_apart_and_scores_them_against_gold(settings, researcher):
    amy = make_annotator("amy")
    project = services.create_project(
        name="Pre",
        recipes=[make_recipe("Cobbler"), make_recipe("Broken")],
        properties=PROPS,
        annotators=[amy],
        annotators_per_item=1,
    )
    model_says = {
        0: ("autonomous", "oven"),
        1: ("autonomous", "microwave"),
        2: ("autonomous", "none"),
        3: ("continuous", "none"),
        4: ("autonomous", "oven"),
    }
    with standin_server(_reply_for(model_says)) as server:
        settings.LLM_BASE_URL = server["base_url"]
        settings.LLM_MODEL = "standin-1"
        with mock.patch.object(background, "submit") as submit:
            run = preannotation.start(project=project, user=researcher)
        run = preannotation.run(run.pk)
    assert run.status == PreannotationRun.Status.DONE and (run.done, run.total) == (2, 2)
    assert [e["recipe"] for e in run.errors] == ["Broken"] and run.errors[0]["fatal"]
    assert "not JSON" in run.errors[0]["message"] and "autonomous" in run.errors[0]["reply"]
    asked = server["requests"][0]
    assert asked["model"] == "standin-1"
    # The reply's shape goes with the request, so endpoints that constrain decoding keep to it.
    schema = asked["response_format"]["json_schema"]["schema"]
    entry = schema["properties"]["steps"]["items"]
    assert entry["properties"]["step"]["enum"] == STEPS and entry["required"] == ["step", *PROPS]
    assert entry["properties"]["concurrency"]["enum"] == ["autonomous", "continuous"]
    assert "Step 2: Pour the butter in the pan." in server["requests"][0]["messages"][-1]["content"]
    model = run.annotator
    assert model.name == "model:standin-1" and model.is_model
    assert Label.objects.filter(annotator=model).count() == 10  # Cobbler only; nothing from the bad reply
    assert selectors.ratings(project) == {"concurrency": {}, "resource": {}}  # kept out of agreement
    # Gold: the recipe's truth. Concurrency: model right on 4 of 5 (step 2 is continuous).
    truth = {0: "autonomous", 1: "autonomous", 2: "continuous", 3: "continuous", 4: "autonomous"}
    for item in project.items.filter(recipe__name="Cobbler"):
        services.set_gold(user=researcher, item=item, prop="concurrency", value=truth[item.step])
    (scores,) = model_report(project)
    concurrency = scores["properties"]["concurrency"]
    # autonomous: P 3/4, R 1; continuous: P 1, R 1/2 -> macro P .875, R .75, F1 (6/7 + 2/3) / 2
    assert concurrency["precision"] == pytest.approx(0.875)
    assert concurrency["recall"] == pytest.approx(0.75)
    assert concurrency["f1"] == pytest.approx((6 / 7 + 2 / 3) / 2)
    submit.assert_not_called()  # on_commit never fires inside the test transaction


@pytest.mark.django_db
def test_an_unreachable_endpoint_is_an_error_entry_not_a_crash(settings, researcher):
    project = _cobbler_for_amy("Down")
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens
    settings.LLM_TIMEOUT_SECONDS = 2
    run = preannotation.run(preannotation.start(project=project, user=researcher).pk)
    # no recipe labelled: failed, saying why on the run's line (a green "Done" hid it)
    assert run.status == PreannotationRun.Status.FAILED
    assert run.message.startswith("no recipe labelled: no answer: cannot reach")
    assert run.errors[0]["message"].startswith("no answer: cannot reach")
    assert not Label.objects.exists()
    from django.template.loader import render_to_string

    shown = render_to_string("annotations/_run.html", {"run": run})
    assert 'badge danger">Failed' in shown and "no recipe labelled: no answer: cannot reach" in shown


@pytest.mark.django_db
def test_suggestions_reach_annotators_only_when_the_project_allows(client, settings, researcher):
    amy = make_annotator("amy")
    project = services.create_project(
        name="Hints", recipes=[make_recipe("Cobbler")], properties=PROPS, annotators=[amy], annotators_per_item=1
    )
    replies = [json.dumps([{"step": s, "concurrency": "autonomous", "resource": "microwave"} for s in STEPS])]
    with standin_server(replies) as server:
        settings.LLM_BASE_URL = server["base_url"]
        preannotation.run(preannotation.start(project=project, user=researcher).pk)
    url = reverse("annotations:label", args=[project.recipes.get().pk])
    client.force_login(amy)
    assert "Model suggests" not in client.get(url).content.decode()
    client.force_login(researcher)
    client.post(reverse("annotations:suggestions", args=[project.pk]), {"show": "1"})
    client.force_login(amy)
    page = client.get(url).content.decode()
    assert page.count("Model suggests: <strong>microwave</strong>") == 5


@pytest.mark.django_db
def test_the_page_starts_a_run_and_shows_its_progress(client, researcher):
    project = _cobbler_for_amy("Page")
    client.force_login(researcher)
    with mock.patch.object(background, "submit"):
        response = client.post(reverse("annotations:preannotate", args=[project.pk]), follow=True)
    assert "Pre-annotation with" in response.content.decode()
    run = PreannotationRun.objects.get()
    fragment = client.get(reverse("annotations:run", args=[run.pk])).content.decode()
    assert 'hx-trigger="every 1s"' in fragment and "0 of 1 recipes" in fragment
    again = client.post(reverse("annotations:preannotate", args=[project.pk]), follow=True).content.decode()
    assert "is under way; wait for it to finish" in again
    # done: what the run did, once, and the way to its scores
    PreannotationRun.objects.filter(pk=run.pk).update(status="done", done=1, message="1 of 1 recipes labelled")
    fragment = client.get(reverse("annotations:run", args=[run.pk])).content.decode()
    assert "hx-trigger" not in fragment and fragment.count("1 of 1 recipes") == 1
    report = reverse("annotations:report", args=[project.pk])
    assert f'<a href="{report}#models-title">See its labels scored against gold</a>' in fragment


@pytest.mark.django_db
def test_the_celery_task_runs_a_run(settings, researcher):
    from annotations.tasks import preannotate

    project = _cobbler_for_amy("Task")
    replies = [json.dumps([{"step": s, "concurrency": "continuous", "resource": "none"} for s in STEPS])]
    with standin_server(replies) as server:
        settings.LLM_BASE_URL = server["base_url"]
        with mock.patch.object(background, "submit"):
            run = preannotation.start(project=project, user=researcher)
        assert preannotate.apply(args=[run.pk]).get() == "done"
    assert Label.objects.filter(annotator__is_model=True).count() == 10


@pytest.mark.django_db
def test_a_run_is_queued_as_a_background_task_once_its_row_is_committed(researcher, django_capture_on_commit_callbacks):
    project = _cobbler_for_amy("Queued")
    with mock.patch.object(background, "submit") as submit:
        with django_capture_on_commit_callbacks() as callbacks:
            run = preannotation.start(project=project, user=researcher)
        submit.assert_not_called()
        for callback in callbacks:
            callback()
    submit.assert_called_once_with("annotations.preannotate", run.pk, countdown=0.0)


@pytest.mark.llm
@pytest.mark.django_db
def test_the_bundled_small_model_labels_every_step_when_held_to_the_reply_schema(llm_settings, researcher):
    """SmolLM2-135M answers prose when merely told to write JSON (every recipe a fatal "not JSON"
    before the schema went with the request); held to the reply schema it labels every step."""
    properties = ["concurrency", "interruptibility", "resource", "time_constraint", "dependency"]
    project = _cobbler_for_amy("Live", properties)
    with mock.patch.object(background, "submit"):
        run = preannotation.start(project=project, user=researcher)
    run = preannotation.run(run.pk)
    assert run.status == PreannotationRun.Status.DONE
    assert not [e for e in run.errors if e["fatal"]], run.errors
    labels = Label.objects.filter(annotator=run.annotator)
    # The closed properties are held to their values by the schema, so every step has them; a
    # step reference (dependency, time constraint) may still name a missing step or the step
    # itself, which is dropped with a problem entry, never stored.
    for prop in ("concurrency", "interruptibility", "resource"):
        assert labels.filter(property=prop).count() == len(STEPS), (prop, run.errors)
    assert labels.count() + len(run.errors) >= len(STEPS) * len(properties)


def test_a_server_that_ran_a_pre_annotation_in_its_own_threads_runs_it_again_at_start(
    settings, researcher, monkeypatch
):
    from games import scheduler

    project = _cobbler_for_amy("Cut off")
    with mock.patch.object(background, "submit"):
        run = preannotation.start(project=project, user=researcher)
    PreannotationRun.objects.filter(pk=run.pk).update(status=PreannotationRun.Status.RUNNING, done=0)
    settings.BACKGROUND_INLINE = True  # queued work runs in the caller here
    monkeypatch.setattr(background, "in_this_process", lambda: True)  # as the embedded server's threads
    replies = [json.dumps([{"step": s, "concurrency": "continuous", "resource": "none"} for s in STEPS])]
    with standin_server(replies) as server:
        settings.LLM_BASE_URL = server["base_url"]
        assert scheduler.resume_background_work() == [f"pre-annotation run {run.pk}"]
    run.refresh_from_db()
    assert run.status == PreannotationRun.Status.DONE and run.done == 1
    assert Label.objects.filter(annotator__is_model=True).count() == 10
