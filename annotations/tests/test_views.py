"""The pages through the test client: roles, blindness, save-as-you-go over HTTP, submit, report, gold."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotations import services
from annotations.models import GoldLabel, Label, Project
from annotations.tests.factories import make_annotator, make_recipe, tied_project
from games.catalog.recipes.models import Recipe

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(researcher):
    amy, bob = make_annotator("amy"), make_annotator("bob")
    project = services.create_project(
        name="Views",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency", "resource", "time_constraint"],
        annotators=[amy, bob],
        annotators_per_item=2,
        created_by=researcher,
    )
    unit = project.recipes.get()
    return project, unit, amy, bob


def _save(client, item, prop, **data):
    return client.post(reverse("annotations:save", args=[item.pk]), {"prop": prop, **data}, HTTP_HX_REQUEST="true")


def _checked(html: str) -> list[str]:
    return re.findall(r'name="value" value="([^"]+)"[^>]*checked', html) + re.findall(
        r'<option value="([^"]+)" selected>', html
    )


def test_save_as_you_go_survives_a_reload(client, setup):
    _, unit, amy, _ = setup
    client.force_login(amy)
    item = unit.items.get(step=2)
    response = _save(client, item, "resource", value=["stove", "oven"])
    assert response.status_code == 200 and "Saved" in response.content.decode()
    assert 'id="label-progress" hx-swap-oob="true"' in response.content.decode()
    _save(client, item, "time_constraint", k="1", n="2")
    page = client.get(reverse("annotations:label", args=[unit.pk])).content.decode()
    assert Label.objects.get(item=item, property="resource").value == "oven+stove"
    assert Label.objects.get(item=item, property="time_constraint").value == "1:2"
    assert "2 of 15 labels" in page
    assert 'data-missing="13">13 labels missing</span>' in page  # beside "Submit recipe"
    last = _save(client, item, "concurrency", value="continuous").content.decode()
    assert 'id="submit-missing" data-missing="12" hx-swap-oob="true">12 labels missing</span>' in last
    assert 'value="2"' in page  # the minutes are shown again


def test_a_refused_value_shows_why_and_changes_nothing(client, setup):
    _, unit, amy, _ = setup
    client.force_login(amy)
    item = unit.items.get(step=2)
    response = _save(client, item, "resource", value=["none", "oven"])
    assert response["HX-Retarget"] == f"#control-{item.pk}-resource"
    assert "Not saved: choose none or some steps/appliances, not both" in response.content.decode()
    pending = _save(client, item, "time_constraint", k="1")
    assert "now enter within how many minutes" in pending.content.decode()
    for k, n, said in (
        ("1", "99999999999999999999", "a whole number from 1 to 999"),  # it was stored as the label
        ("1", "\u0663", "a whole number from 1 to 999"),
        ("1\u0663", "5", "pick the step from the list"),  # int() read it as step 13
        ("9" * 5000, "5", "pick the step from the list"),  # was Python's "Exceeds the limit (4300 digits)"
        ("1", "9" * 5000, "a whole number from 1 to 999"),
        ("3", "5", "can only name an earlier step, not step 3"),  # the page offers steps 0 and 1; it was saved
    ):
        refused = _save(client, item, "time_constraint", k=k, n=n)
        assert "Not saved" in refused.content.decode() and said in refused.content.decode(), (k, n)
    unticked = _save(client, item, "concurrency")  # no value: the page cannot untick a radio
    assert "Not saved: choose one of" in unticked.content.decode()
    minutes_first = _save(client, item, "time_constraint", k="", n="5")
    assert "now pick the step this one must start within 5 min of" in minutes_first.content.decode()
    assert not Label.objects.exists()
    _save(client, item, "time_constraint", k="1", n="2")
    _save(client, item, "time_constraint", k="", n="5")  # minutes typed before a step: nothing is cleared
    assert Label.objects.get(item=item, property="time_constraint").value == "1:2"
    cleared = _save(client, item, "time_constraint", k="", n="")
    assert "Cleared" in cleared.content.decode() and not Label.objects.filter(property="time_constraint").exists()


def test_a_half_entered_constraint_never_hides_a_saved_one(client, setup):
    """Playtest: on a step holding "after step 3, within 10 min", the annotator emptied the minutes
    and pressed Enter; the page said "now enter within how many minutes" beside an empty box, the
    browser kept that half entry across reloads, and the server still held 3:10, which submitting
    made final. What is shown is now what is saved."""
    _, unit, amy, _ = setup
    client.force_login(amy)
    item = unit.items.get(step=4)
    _save(client, item, "time_constraint", k="3", n="10")
    emptied = _save(client, item, "time_constraint", k="3", n="")
    html = emptied.content.decode()
    # the control comes back from what is stored: the minutes are in the box again, and it says so
    assert emptied["HX-Retarget"] == f"#control-{item.pk}-time_constraint"
    assert re.search(r'name="n"[^>]*value="10"', html)
    assert '<option value="3" selected>' in html
    assert "Minutes empty, so nothing changed: the saved label stays (after step 3, within 10 min)" in html
    assert "To remove it, choose “(not labelled yet)”" in html
    assert "data-half" not in html  # the browser keeps no half entry over a saved label
    # another step picked, its minutes still to come: the saved label is named as the one that stays
    moving = _save(client, item, "time_constraint", k="2", n="").content.decode()
    assert "now enter within how many minutes after step 2" in moving
    assert "until then the saved label stays (after step 3, within 10 min)" in moving
    assert "data-half" not in moving and "HX-Retarget" not in _save(client, item, "time_constraint", k="2")
    assert Label.objects.get(item=item, property="time_constraint").value == "3:10"
    # with nothing saved, the half entry is the browser's to keep until the minutes come
    fresh = _save(client, unit.items.get(step=3), "time_constraint", k="1").content.decode()
    assert "now enter within how many minutes after step 1" in fresh and "data-half" in fresh


def test_blind_an_annotator_never_sees_others_labels_or_gold(client, setup, researcher):
    project, unit, amy, bob = setup
    item = unit.items.get(step=0)
    services.save_label(user=amy, item=item, prop="concurrency", value="autonomous")
    services.save_label(user=amy, item=item, prop="resource", value="oven")
    services.set_gold(user=researcher, item=item, prop="time_constraint", value="none")
    client.force_login(bob)
    page = client.get(reverse("annotations:label", args=[unit.pk])).content.decode()
    assert _checked(page) == []  # nothing pre-selected: neither amy's labels nor the gold
    assert "0 of 15 labels" in page
    answer = _save(client, item, "concurrency", value="continuous").content.decode()
    assert "autonomous" not in answer and "oven" not in answer
    # Bob's own label is all he gets back; amy's is untouched.
    assert Label.objects.get(item=item, annotator__name="amy", property="concurrency").value == "autonomous"
    for name in ("annotations:report", "annotations:adjudicate", "annotations:project", "annotations:export"):
        assert client.get(reverse(name, args=[project.pk])).status_code == 403


def test_an_annotator_cannot_open_or_write_a_recipe_not_in_their_queue(client, setup):
    _, unit, _, _ = setup
    outsider = make_annotator("zed")
    client.force_login(outsider)
    assert client.get(reverse("annotations:label", args=[unit.pk])).status_code == 404
    assert _save(client, unit.items.first(), "concurrency", value="autonomous").status_code == 404
    assert not Label.objects.exists()


def test_submit_needs_every_label_then_locks(client, setup):
    _, unit, amy, _ = setup
    client.force_login(amy)
    response = client.post(reverse("annotations:submit", args=[unit.pk]), follow=True)
    message = response.content.decode()
    assert "Not submitted: label every step before submitting; missing step 0: concurrency" in message
    assert "step 0: time constraint" in message  # in words, as the form names it (not time_constraint)
    for item in unit.items.all():
        _save(client, item, "concurrency", value="continuous")
        _save(client, item, "resource", value="none")
        _save(client, item, "time_constraint", k="none")
    response = client.post(reverse("annotations:submit", args=[unit.pk]), follow=True)
    assert "Submitted Cobbler" in response.content.decode()
    page = client.get(reverse("annotations:label", args=[unit.pk])).content.decode()
    assert "labels are final" in page and "<fieldset disabled>" in page
    assert 'id="shortcuts"' not in page  # keys that no longer do anything are not offered
    assert (
        "you submitted Cobbler already" in _save(client, unit.items.first(), "resource", value="oven").content.decode()
    )
    # a second submit (another tab) was thanked again as news
    again = client.post(reverse("annotations:submit", args=[unit.pk]), follow=True).content.decode()
    assert "You submitted Cobbler already; its labels are final." in again and "Thank you" not in again


def test_submit_goes_on_to_the_next_recipe_of_the_same_project(client, researcher):
    """Playtest: after submitting Lemonade of "Tester pilot" the annotator landed on Lemonade of an
    older project, "Demo", showing "0 of 20 labels": it looked as if their labels had vanished."""
    amy = make_annotator("amy")
    lemonade, cobbler = make_recipe("Lemonade"), make_recipe("Cobbler")

    def project(name, recipes):
        return services.create_project(
            name=name, recipes=recipes, properties=["concurrency"], annotators=[amy], annotators_per_item=1
        )

    demo = project("Demo", [lemonade])
    pilot = project("Tester pilot", [lemonade, cobbler])
    client.force_login(amy)

    def submit(unit):
        for item in unit.items.all():
            _save(client, item, "concurrency", value="continuous")
        return client.post(reverse("annotations:submit", args=[unit.pk]), follow=True)

    first = submit(pilot.recipes.get(recipe__name="Lemonade"))
    assert first.redirect_chain[-1][0] == reverse(
        "annotations:label", args=[pilot.recipes.get(recipe__name="Cobbler").pk]
    )
    assert "Next in Tester pilot: Cobbler." in first.content.decode()
    last = submit(pilot.recipes.get(recipe__name="Cobbler"))
    assert last.redirect_chain[-1][0] == reverse("annotations:queue")  # not Demo's Lemonade
    page = last.content.decode()
    assert "Nothing left to label in Tester pilot. Your queue has the other projects." in page
    assert "Continue with Lemonade" in page  # Demo's, named with its project in the table
    done = submit(demo.recipes.get())
    assert done.redirect_chain[-1][0] == reverse("annotations:queue")
    assert "Your queue is done." in done.content.decode()


def test_a_resource_label_mixing_none_with_an_appliance_says_none_stands_alone():
    from annotations.schema import LabelError, check_label

    with pytest.raises(LabelError, match="resource none stands alone; write 'oven'"):
        check_label("resource", "none+oven", step=1, steps=[(0, "a"), (1, "b")])


def test_queue_and_dashboard_panel(client, setup):
    _, _, amy, _ = setup
    client.force_login(amy)
    page = client.get(reverse("annotations:queue")).content.decode()
    assert "Continue with Cobbler" in page and "0 of 1 recipes submitted" in page
    home = client.get(reverse("home")).content.decode()
    assert "1 of 1 recipes to label; next: Cobbler" in home
    # "Continue labelling" opens the recipe it names (it opened the queue)
    unit = amy.annotator.assignments.get().recipe
    label_url = reverse("annotations:label", args=[unit.pk])
    assert re.search(rf'<a[^>]*href="{label_url}"[^>]*>Continue labelling</a>', home), home[
        home.find("Continue") - 300 :
    ][:400]


def test_researcher_creates_a_project_from_the_form(client, researcher):
    recipe = make_recipe("Tea")
    make_recipe("Garlic-Bread")
    people = [make_annotator(n) for n in ("amy", "bob", "cat")]
    client.force_login(researcher)
    form = client.get(reverse("annotations:project_new")).content.decode()
    assert "Label every step of the recipe" in form  # guidelines default (SPEC 9)
    assert "Garlic Bread (v1, " in form and "Garlic-Bread" not in form  # recipes by title
    empty = client.post(reverse("annotations:project_new"), {"annotators_per_item": 3}).content.decode()
    for fix in ("Give the project a name.", "Choose at least one recipe to label.", "Choose who labels"):
        assert fix in empty  # each empty field says what to do, not just "This field is required."
    data = {
        "name": "Tea study",
        "recipes": [recipe.pk],
        "properties": ["concurrency", "interruptibility"],
        "annotators_per_item": 3,
        "annotators": [p.pk for p in people[:2]],
        "guidelines": "Be careful.",
    }
    refused = client.post(reverse("annotations:project_new"), data).content.decode()
    assert "3 annotators per item needs at least 3 annotators" in refused
    too_long = client.post(reverse("annotations:project_new"), {**data, "guidelines": "g" * 20_001}).content.decode()
    assert "at most 20000 characters (it has 20001)" in too_long  # shown beside every recipe labelled
    everyone = [p.pk for p in people]
    emptied = client.post(
        reverse("annotations:project_new"), {**data, "name": "No rules", "guidelines": "", "annotators": everyone}
    )
    assert emptied.status_code == 302  # refused with no message shown: the field was required
    assert Project.objects.get(name="No rules").guidelines.startswith("Label every step of the recipe")
    Project.objects.all().delete()
    assert not Project.objects.exists()
    data["annotators"] = [p.pk for p in people]
    response = client.post(reverse("annotations:project_new"), data)
    project = Project.objects.get(name="Tea study")
    assert response.status_code == 302 and project.guidelines == "Be careful."
    assert project.recipes.get().assignments.count() == 3
    page = client.get(response["Location"]).content.decode()
    assert "Project “Tea study” created" in page
    assert "Concurrency, Interruptibility</dd>" in page  # the form's names, not concurrency, interruptibility


def test_report_page_and_json_agree(client, setup, researcher):
    project, unit, amy, bob = setup
    for user, value in ((amy, "autonomous"), (bob, "continuous")):
        for item in unit.items.all():
            services.save_label(user=user, item=item, prop="concurrency", value=value if item.step else "autonomous")
            services.save_label(user=user, item=item, prop="resource", value="none")
            services.save_label(user=user, item=item, prop="time_constraint", value="none")
        services.submit(user=user, unit=unit)
    client.force_login(researcher)
    page = client.get(reverse("annotations:report", args=[project.pk])).content.decode()
    assert "<svg" in page and "Cohen's kappa per pair" in page
    assert "amy · bob" in page
    assert "20.0%" in page  # concurrency: they agree on 1 of 5 steps
    assert ">Cobbler, step 1</a>" in page  # disputed items are named as people read them
    # the headline figures say how many items they rest on (a kappa over 5 items read as "no agreement")
    assert "overall Fleiss' kappa (mean; 5 items every annotator labelled)" in page
    assert "overall Krippendorff's alpha (mean; 5 items)" in page
    assert "Agreement compares two annotators" not in page


def test_the_published_level_is_drawn_over_the_bars_and_under_their_values(client, setup, researcher):
    """Playtest: on the agreement chart the "published level" line was drawn before the bars, so a
    bar reaching past it hid it."""
    project, unit, amy, bob = setup
    for user in (amy, bob):
        for item in unit.items.all():
            services.save_label(
                user=user, item=item, prop="concurrency", value="continuous" if item.step else "autonomous"
            )
            services.save_label(user=user, item=item, prop="resource", value="none" if item.step else "oven")
            services.save_label(user=user, item=item, prop="time_constraint", value="none")
        services.submit(user=user, unit=unit)
    client.force_login(researcher)
    page = client.get(reverse("annotations:report", args=[project.pk])).content.decode()
    chart = page[page.index("<svg") : page.index("</svg>")]  # the overview: kappa per property
    drawn = re.findall(r'<(rect|line class="ref"|text class="value)', chart)
    refs = [i for i, what in enumerate(drawn) if what == 'line class="ref"']
    assert refs  # concurrency and resources have a published level
    for i in refs:  # each right after its group's last bar, right before its values
        assert drawn[i - 1] == "rect" and drawn[i + 1] == 'text class="value', drawn


def test_the_report_says_what_it_needs_while_one_annotator_has_submitted(client, setup, researcher):
    # every figure read "n/a", the agreement "n/a%", and "No disagreements" with nothing compared
    project, unit, amy, _ = setup
    for item in unit.items.all():
        for prop in ("concurrency", "resource", "time_constraint"):
            services.save_label(user=amy, item=item, prop=prop, value="autonomous" if prop == "concurrency" else "none")
    services.submit(user=amy, unit=unit)
    client.force_login(researcher)
    page = client.get(reverse("annotations:report", args=[project.pk])).content.decode()
    assert "Agreement compares two annotators' labels of the same steps" in page
    assert "(submitted so far: amy)" in page
    assert "n/a%" not in page and "No disagreements" not in page


def test_report_and_adjudication_write_labels_in_words(client, setup, researcher):
    # the confusion tables read "1:2" and "oven+stove": codes a researcher had to decode
    project, unit, amy, bob = setup
    for user, window, appliances in ((amy, "1:2", "oven+stove"), (bob, "none", "none")):
        for item in unit.items.all():
            services.save_label(user=user, item=item, prop="concurrency", value="autonomous")
            services.save_label(user=user, item=item, prop="resource", value=appliances if item.step == 2 else "none")
            constraint = window if item.step == 2 else "none"
            services.save_label(user=user, item=item, prop="time_constraint", value=constraint)
        services.submit(user=user, unit=unit)
    client.force_login(researcher)
    page = client.get(reverse("annotations:report", args=[project.pk])).content.decode()
    assert '<th scope="col">after step 1, within 2 min</th>' in page and "oven + stove×1" in page
    assert ">1:2<" not in page and "oven+stove" not in page
    disputed = page[page.index("Most disputed items") :]
    assert "Time constraint (" in disputed and "time_constraint (" not in disputed  # the page's own names
    url = reverse("annotations:adjudicate", args=[project.pk])
    page = client.get(url, {"item": "Cobbler/2"}).content.decode()
    assert "<strong>after step 1, within 2 min</strong> × 1" in page and "<li>amy: oven + stove</li>" in page
    assert re.search(r'<option value="1:2"( selected)?>after step 1, within 2 min</option>', page)  # code kept
    # every combination of appliances is offered (a combination nobody voted had to be typed);
    # only the open properties keep a field to type in
    assert '<option value="microwave+oven">microwave + oven</option>' in page
    assert '<option value="microwave+oven+stove">microwave + oven + stove</option>' in page
    assert 'name="time_constraint-other"' in page and 'name="resource-other"' not in page
    assert 'name="concurrency-other"' not in page
    gold = {"item": "Cobbler/2", "concurrency": "autonomous", "resource": "microwave+oven", "time_constraint": "none"}
    client.post(reverse("annotations:save_gold", args=[project.pk]), gold)
    assert GoldLabel.objects.get(item__key="Cobbler/2", property="resource").value == "microwave+oven"


def test_label_text_reads_every_property_and_leaves_what_it_cannot_read():
    from annotations.schema import label_text

    assert label_text("interruptibility", "not_interruptible") == "not interruptible"
    assert label_text("time_constraint", "1:2+3:10") == "after step 1, within 2 min; after step 3, within 10 min"
    assert label_text("dependency", "1+4") == "after steps 1, 4" and label_text("dependency", "2") == "after step 2"
    assert label_text("resource", "microwave+oven") == "microwave + oven"
    assert label_text("time_constraint", "none") == "none" and label_text("time_constraint", "soon") == "soon"


def test_adjudication_prefills_majority_and_saves_gold_then_applies_it(client, researcher):
    people = [make_annotator(n) for n in ("amy", "bob", "cat")]
    project = services.create_project(
        name="Gold", recipes=[make_recipe("Cobbler")], properties=["concurrency"], annotators=people
    )
    unit = project.recipes.get()
    votes = {"amy": "continuous", "bob": "continuous", "cat": "autonomous"}
    for user in people:
        for item in unit.items.all():
            value = (
                votes[user.username] if item.step == 2 else ("autonomous" if item.step in (0, 1, 4) else "continuous")
            )
            services.save_label(user=user, item=item, prop="concurrency", value=value)
        services.submit(user=user, unit=unit)
    client.force_login(researcher)
    url = reverse("annotations:adjudicate", args=[project.pk])
    page = client.get(url, {"filter": "disputed"}).content.decode()
    assert "<h2>Cobbler, step 2</h2>" in page and '<option value="continuous" selected>' in page
    client.post(reverse("annotations:save_gold", args=[project.pk]), {"item": "Cobbler/2", "concurrency": "autonomous"})
    assert GoldLabel.objects.get(item__key="Cobbler/2").value == "autonomous"
    client.post(reverse("annotations:accept_unanimous", args=[project.pk]))
    assert GoldLabel.objects.filter(item__project=project).count() == 5
    # Step 2 ("Pour the butter") becomes autonomous in the recipe's next version; v1 stays.
    response = client.post(reverse("annotations:apply_gold", args=[project.pk]), follow=True)
    assert "New recipe versions: Cobbler v2" in response.content.decode()
    v1, v2 = Recipe.objects.filter(name="Cobbler").order_by("version")
    assert not v1.is_current and v2.is_current and v2.source == "gold:Gold"
    assert v1.steps.get(index=2).autonomous is False and v2.steps.get(index=2).autonomous is True
    assert v2.steps.get(index=0).physical == v1.steps.get(index=0).physical


def test_adjudication_leaves_a_tie_undecided_and_says_when_a_list_is_done(client, researcher):
    """Playtest: a 1-vs-1 tie came pre-filled with one side (the first alphabetically) beside "press
    Enter to accept", so Enter through the items chose gold at random; and saving the last
    disputed item went back to the first without a word."""
    project = tied_project()
    client.force_login(researcher)
    url = reverse("annotations:adjudicate", args=[project.pk])
    page = client.get(url, {"filter": "disputed"}).content.decode()
    assert "<h2>Cobbler, step 4</h2>" in page
    assert '<option value="" selected>(undecided)</option>' in page  # the tie: the adjudicator chooses
    assert '<option value="autonomous" selected>' not in page and '<option value="continuous" selected>' not in page
    assert '<option value="none" selected>' in page  # the unanimous one is pre-filled as before
    assert "tie: choose the gold label" in page and "A tie is left undecided (concurrency)" in page
    # Enter through: the tie stays undecided, and the message says so
    saved = client.post(
        reverse("annotations:save_gold", args=[project.pk]),
        {"item": "Cobbler/4", "filter": "disputed", "concurrency": "", "resource": "none", "next": ""},
        follow=True,
    )
    assert "Saved 1 gold label for Cobbler, step 4; left undecided: concurrency." in saved.content.decode()
    assert not GoldLabel.objects.filter(property="concurrency").exists()
    # the disputed list's last (and only) item: it says the list is done instead of starting over
    assert saved.redirect_chain[-1][0] == f"{url}?filter=disputed&end=1"
    done = saved.content.decode()
    assert "Nothing left in this list. You went through its 1 item" in done and "<h2>Cobbler" not in done
    decided = client.post(
        reverse("annotations:save_gold", args=[project.pk]),
        {"item": "Cobbler/4", "filter": "disputed", "concurrency": "continuous", "resource": "none", "next": ""},
        follow=True,
    )
    assert "left undecided" not in decided.content.decode()
    again = client.get(url, {"filter": "disputed", "item": "Cobbler/4"}).content.decode()
    assert '<option value="continuous" selected>' in again and "tie: choose" not in again  # gold decided


def test_a_refused_typed_gold_label_stays_in_its_box_and_is_named_in_the_pages_words(client, researcher):
    """Playtest: typing "abc" as gold emptied the box on refusal, so it could not be mended, and the
    message said "Gold for Garlic-Bread/2 not saved: time_constraint: ..."."""
    amy = make_annotator("amy")
    project = services.create_project(
        name="Typed",
        recipes=[make_recipe("Garlic-Bread")],
        properties=["concurrency", "time_constraint"],
        annotators=[amy],
        annotators_per_item=1,
    )
    client.force_login(researcher)
    response = client.post(
        reverse("annotations:save_gold", args=[project.pk]),
        {"item": "Garlic-Bread/2", "filter": "all", "concurrency": "continuous", "time_constraint-other": "abc"},
    )
    page = response.content.decode()
    assert response.status_code == 200  # the page again, not a redirect that forgets what was typed
    assert re.search(r'name="time_constraint-other" type="text" value="abc" autofocus aria-invalid="true"', page)
    assert '<option value="continuous" selected>' in page  # the other choices are kept too
    message = re.search(r'<li class="message error">(.*?)</li>', page, re.S).group(1)
    assert message == (
        "Gold for Garlic Bread, step 2 not saved: time constraint “abc” is not a label: "
        "type step:minutes, e.g. 2:5 (after step 2, within 5 min), or none."
    )
    assert 'id="gold-time_constraint-error">Not saved: time constraint “abc” is not a label' in page
    # a well-formed label refused for its meaning keeps the schema's reason, in words
    later = client.post(
        reverse("annotations:save_gold", args=[project.pk]),
        {"item": "Garlic-Bread/2", "filter": "all", "time_constraint-other": "4:5"},
    ).content.decode()
    assert "Gold for Garlic Bread, step 2 not saved: time constraint of step 2 can only name an earlier step" in later
    assert 'value="4:5"' in later
    assert not GoldLabel.objects.exists()
    # mended in place, it saves
    mended = client.post(
        reverse("annotations:save_gold", args=[project.pk]),
        {"item": "Garlic-Bread/2", "filter": "all", "concurrency": "continuous", "time_constraint-other": "1:5"},
        follow=True,
    )
    assert "Saved 2 gold labels for Garlic Bread, step 2." in mended.content.decode()
    assert GoldLabel.objects.get(property="time_constraint").value == "1:5"


def test_applied_gold_names_recipes_by_title(client, researcher):
    project = services.create_project(
        name="Titles",
        recipes=[make_recipe("Peach-Cobbler")],
        properties=["concurrency"],
        annotators=[make_annotator("amy")],
        annotators_per_item=1,
    )
    item = project.items.get(step=2)  # "Pour the butter": not autonomous in the recipe
    services.set_gold(user=researcher, item=item, prop="concurrency", value="autonomous")
    client.force_login(researcher)
    page = client.post(reverse("annotations:apply_gold", args=[project.pk]), follow=True).content.decode()
    assert "New recipe versions: Peach Cobbler v2" in page and "<li>Peach Cobbler v2 · " in page
    assert "Peach-Cobbler v" not in page


def test_streamed_exports(client, setup, researcher):
    project, unit, amy, _ = setup
    services.save_label(user=amy, item=unit.items.first(), prop="concurrency", value="autonomous")
    client.force_login(researcher)
    response = client.get(reverse("annotations:export", args=[project.pk]), {"format": "csv"})
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    assert b"".join(response.streaming_content).decode() == "item_id,annotator,property,label\n"  # not submitted yet
    assert client.get(reverse("annotations:export", args=[project.pk]), {"format": "xml"}).status_code == 400


def test_the_label_export_streams_under_asgi(setup, researcher):
    """Under ASGI the rows go out as an asynchronous iterator (a plain one would be collected into
    memory before the first byte is sent)."""
    from django.test import AsyncRequestFactory

    from annotations.views.projects import project_export

    project, *_ = setup
    request = AsyncRequestFactory().get(reverse("annotations:export", args=[project.pk]), {"format": "csv"})
    request.user = researcher
    response = project_export(request, pk=project.pk)
    assert response.streaming and response.is_async


def test_the_shortcut_legend_lists_the_keys_of_the_properties_the_project_labels(client, setup, researcher):
    _, unit, amy, _ = setup  # concurrency, resource and time constraint
    client.force_login(amy)
    legend = re.findall(
        r"<dt><kbd>([^<]+)</kbd></dt>", client.get(reverse("annotations:label", args=[unit.pk])).content.decode()
    )
    assert legend == ["j / ↓", "k / ↑", "a / c", "o / m / s", "0", "x", "t", "Esc", "?"]
    with_dependencies = services.create_project(
        name="Dependencies",
        recipes=[make_recipe("Crumble")],
        properties=["dependency"],
        annotators=[amy],
        annotators_per_item=1,
        created_by=researcher,
    ).recipes.get()
    page = client.get(reverse("annotations:label", args=[with_dependencies.pk])).content.decode()
    assert re.findall(r"<dt><kbd>([^<]+)</kbd></dt>", page) == ["j / ↓", "k / ↑", "d", "Esc", "?"]


def test_the_project_list_counts_each_projects_work_in_a_fixed_number_of_queries(client, setup, researcher):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    project, unit, amy, _ = setup
    services.save_label(user=amy, item=unit.items.get(step=0), prop="concurrency", value="autonomous")
    services.set_gold(user=researcher, item=unit.items.get(step=1), prop="resource", value="none")
    client.force_login(researcher)

    def listed() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as done:
            html = client.get(reverse("annotations:projects")).content.decode()
        return " ".join(html.split()), len(done)

    html, few = listed()
    assert f'href="{reverse("annotations:queue")}">My labelling queue</a>' in html  # a researcher labels too
    row = html.split(f'href="/annotate/projects/{project.pk}/">Views</a>')[1].split("</tr>")[0]
    items = unit.items.count()
    assert re.findall(r'<td class="num">([^<]+)</td>', row) == ["1", "2", f"1 / {3 * items}"]
    assert '<span class="hint">0 / 2</span>' in row  # assignments submitted of assigned
    for k in range(5):
        services.create_project(
            name=f"More {k}", recipes=[make_recipe(f"Pie{k}")], properties=["concurrency"], annotators=[amy],
            annotators_per_item=1, created_by=researcher,
        )  # fmt: skip
    assert listed()[1] == few  # it made five queries per project


def test_a_property_the_project_does_not_label_is_refused_in_plain_text(client, setup):
    _, unit, amy, _ = setup
    client.force_login(amy)
    refused = _save(client, unit.items.get(step=0), "<b>colour</b>", value="red")
    assert refused.status_code == 400 and refused["Content-Type"].startswith("text/plain")  # never HTML
    assert not Label.objects.exists()


def test_dependencies_and_time_constraints_are_offered_among_the_steps_before():
    from annotations.controls import build_control

    steps = [(0, "Preheat the oven."), (1, "Mix the batter."), (2, "Bake the cake."), (3, "Serve.")]
    for prop in ("time_constraint", "dependency"):
        offered = [c.value for c in build_control(prop, "", step=2, steps=steps).choices if c.value != "none"]
        assert offered == ["0", "1"], prop
        assert [c.value for c in build_control(prop, "", step=0, steps=steps).choices if c.value != "none"] == []
    # A stored label that names a later step (an import) still shows on its control.
    kept = build_control("time_constraint", "3:5", step=2, steps=steps)
    assert [c.value for c in kept.choices] == ["0", "1", "3"] and kept.constraint_step == "3"
    assert [c.value for c in build_control("dependency", "1+3", step=2, steps=steps).choices] == ["none", "0", "1", "3"]
    # the chips read "None, 0, 1": each names its step, with the step's text on hover
    chips = build_control("dependency", "", step=2, steps=steps).choices[1:]
    assert [(c.label, c.meaning) for c in chips] == [("step 0", "Preheat the oven."), ("step 1", "Mix the batter.")]


def test_the_import_page_imports_a_csv_and_refuses_one_too_large_or_not_utf8(client, setup, researcher, monkeypatch):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotations.views import projects

    project, _, _, _ = setup
    url = reverse("annotations:import", args=[project.pk])
    good = b"item_id,annotator,property,label\nCobbler/0,imported-amy,concurrency,autonomous\n"
    client.force_login(researcher)

    def send(content: bytes):
        response = client.post(url, {"file": SimpleUploadedFile("labels.csv", content, "text/csv")}, follow=True)
        assert response.status_code == 200
        return [str(m) for m in response.context["messages"]]

    page = client.get(reverse("annotations:project", args=[project.pk])).content.decode()
    assert "CSV file (item_id,annotator,property,label), up to 8.0\xa0MB</label>" in page
    # too large: said, with what to do, and nothing imported (the page read the whole file before)
    monkeypatch.setattr(projects, "MAX_IMPORT_BYTES", len(good) - 1)
    said = send(good)
    size, most = f"{len(good)}\xa0bytes", f"{len(good) - 1}\xa0bytes"
    assert said[0].startswith(f"The file is {size}; import at most {most} at a time (split it by rows")
    assert said[0].endswith("Nothing was imported.") and not Label.objects.filter(annotator__name="imported-amy")
    monkeypatch.setattr(projects, "MAX_IMPORT_BYTES", len(good))
    assert "not UTF-8" in send(good.replace(b"amy", b"\xe9my"))[0]
    assert send(good) == ["Imported 1 labels by 1 annotators."]
    assert Label.objects.get(annotator__name="imported-amy").value == "autonomous"
    # an annotator may not import
    client.force_login(setup[2])
    assert client.post(url, {"file": SimpleUploadedFile("labels.csv", good, "text/csv")}).status_code == 403


def test_gold_and_an_annotator_cannot_name_a_later_step(researcher):
    """A time constraint or dependency on a later step could never hold (the steps are in cooking
    order): gold typed on the adjudication page made a recipe whose step 2 must follow step 4."""
    amy = make_annotator("amy")
    project = services.create_project(
        name="Forward",
        recipes=[make_recipe("Cobbler")],
        properties=["time_constraint", "dependency"],
        annotators=[amy],
        annotators_per_item=1,
    )
    item = project.recipes.get().items.get(step=2)
    for prop, value in (("time_constraint", "4:5"), ("dependency", "0+3")):
        with pytest.raises(services.AnnotationError, match="can only name an earlier step"):
            services.set_gold(user=researcher, item=item, prop=prop, value=value)
        with pytest.raises(services.AnnotationError, match="can only name an earlier step"):
            services.save_label(user=amy, item=item, prop=prop, value=value)
    assert not GoldLabel.objects.exists() and not Label.objects.exists()
    services.set_gold(user=researcher, item=item, prop="time_constraint", value="1:5")  # an earlier step is kept
    assert GoldLabel.objects.get().value == "1:5"


def test_adjudication_warns_while_assignments_are_open_and_applying_gold_asks_first(client, researcher):
    """Gold could be accepted and applied, one click each, while annotators were still labelling."""
    people = [make_annotator(n) for n in ("amy", "bob")]
    project = services.create_project(
        name="Half",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency"],
        annotators=people,
        annotators_per_item=2,
    )
    unit = project.recipes.get()
    for item in unit.items.all():
        services.save_label(user=people[0], item=item, prop="concurrency", value="autonomous")
    services.submit(user=people[0], unit=unit)
    client.force_login(researcher)
    page = client.get(reverse("annotations:adjudicate", args=[project.pk])).content.decode()
    assert "1 of 2 recipe assignments are still open" in page
    detail = client.get(reverse("annotations:project", args=[project.pk])).content.decode()
    assert "return confirm(" in detail and "while 1 recipe assignment is still open?" in detail
    for item in unit.items.all():
        services.save_label(user=people[1], item=item, prop="concurrency", value="autonomous")
    services.submit(user=people[1], unit=unit)
    assert "still open" not in client.get(reverse("annotations:adjudicate", args=[project.pk])).content.decode()


def test_a_newcomer_sees_what_each_label_means(client, setup):
    """The meanings sat in a folded Guidelines box and the chips had no hint."""
    _, unit, amy, _ = setup
    client.force_login(amy)
    url = reverse("annotations:label", args=[unit.pk])
    page = client.get(url).content.decode()
    assert 'title="Autonomous: runs by itself once started' in page
    assert 'title="Continuous: keeps the cook busy from start to end' in page
    assert '<details class="card" id="guidelines" open>' in page  # nothing labelled yet
    _save(client, unit.items.get(step=0), "concurrency", value="autonomous")
    assert '<details class="card" id="guidelines">' in client.get(url).content.decode()
