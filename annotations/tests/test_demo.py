"""The demo project seed_demo loads: an open queue for the demo annotator, submitted colleagues."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations import demo, selectors, services
from annotations.dashboard import researcher_panel
from annotations.models import Assignment, Project
from annotations.reports import agreement_report
from annotations.tests.factories import make_annotator, make_recipe

pytestmark = pytest.mark.django_db


def test_demo_project_is_loaded_once_with_agreement_to_show():
    for name in demo.DEMO_RECIPES:
        make_recipe(name)
    demo_user = make_annotator("annotator")
    lines: list[str] = []
    demo.load_demo(lines.append)
    demo.load_demo(lines.append)
    assert Project.objects.filter(name=demo.PROJECT_NAME).count() == 1
    assert "exists" in lines[-1]
    project = Project.objects.get(name=demo.PROJECT_NAME)
    mine = Assignment.objects.filter(annotator=services.annotator_for_user(demo_user))
    assert mine.count() == len(demo.DEMO_RECIPES) and not mine.filter(submitted_at__isnull=False).exists()
    report = agreement_report(project)
    assert report["properties"]["concurrency"]["annotators"] == demo.SIMULATED
    assert report["properties"]["concurrency"]["labels"] == 2 * project.items.count()
    assert set(selectors.ratings(project)) == set(project.properties)


def test_demo_without_recipes_is_skipped():
    lines: list[str] = []
    demo.load_demo(lines.append)
    assert "skipped" in lines[0] and not Project.objects.exists()


def test_researcher_dashboard_panel(client, researcher):
    assert "No annotation projects yet" in researcher_panel(researcher)["body"]
    client.force_login(researcher)
    assert reverse("annotations:projects") in client.get(reverse("home")).content.decode()


def test_the_queue_names_recipes_as_people_read_them(client):
    for name in demo.DEMO_RECIPES:
        make_recipe(name)
    demo_user = make_annotator("annotator")
    demo.load_demo(lambda line: None)
    client.force_login(demo_user)
    queue = client.get(reverse("annotations:queue")).content.decode()
    assert "Tomato Soup" in queue and "Tomato-Soup" not in queue  # the data's "Tomato-Soup"
    soup = Assignment.objects.get(annotator__user=demo_user, recipe__name="Tomato-Soup")
    page = client.get(reverse("annotations:label", args=[soup.recipe_id])).content.decode()
    assert "<h1>Tomato Soup" in page
