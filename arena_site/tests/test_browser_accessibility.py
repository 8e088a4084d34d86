"""An accessibility audit of the site's pages in Debian's chromium: axe-core (the rules engine
browsers' own audits use; installed by scripts/test-tools.sh from the npm registry) runs in every
page a researcher, an annotator, a player and a visitor open, and no page may break a rule.

Stop 50 found, this way, what no test had: the game's message list scrolled but could not be
reached by keyboard, the confusion matrices' white numbers on mid-blue (4.0:1), buttons whose
spoken name did not contain their visible text ("End the participation of P0007" on "End
participation"), two landmarks both named "Kitchen", and table headers with no text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AXE = Path(
    os.environ.get("ARENA_AXE", Path.home() / ".cache" / "arena-axe" / "node_modules" / "axe-core" / "axe.min.js")
)
DEMO_PASSWORD = "arena-demo-2026"  # accounts/management/commands/seed_demo.py
AUDIT = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  const where = v => v.nodes.map(n => n.target.join(" ")).join(", ");
  return result.violations.map(v => `${v.impact} ${v.id}: ${v.help} at ${where(v)}`);
}"""


def violations(page) -> list[str]:
    page.wait_for_load_state("networkidle")
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AUDIT)


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_load_state("networkidle")


def test_no_page_breaks_an_accessibility_rule(live_server, browser):
    if not AXE.exists():
        pytest.skip(f"axe-core is not at {AXE} (scripts/test-tools.sh installs it with npm)")
    from django.contrib.auth import get_user_model

    from annotations.models import Project, ProjectRecipe
    from games import services
    from games.generators.family import generate
    from games.models import GeneratorRun, Scenario
    from studies.models import Study

    call_command("seed_demo", "--quiet-logins")
    player = get_user_model().objects.get(username="participant")
    games = {}
    for domain in ("tasks", "recipes", "kitchen", "itinerary"):
        scenario = Scenario.objects.current().filter(domain=domain, source="bundled").order_by("slug").first()
        # people only: an NPC's turns run in threads of their own, which the live server's one
        # in-memory SQLite connection cannot take beside the pages' requests
        games[domain] = services.create_game(scenario.slug, [{"kind": "human", "user": player}])
    project = Project.objects.get()
    recipe = ProjectRecipe.objects.filter(project=project).order_by("pk").first()
    study = Study.objects.get()
    # the generator's run page, under way and finished (made here: a run's thread could not share
    # the live server's in-memory database)
    researcher = get_user_model().objects.get(username="researcher")
    asked = {"domain": "tasks", "count": 2, "seed": 1, "knobs": {"actions": "6"}, "max_seconds": 1.0}
    solved = generate("tasks", count=2, seed=1, knobs={"actions": "6"}, max_seconds=1.0)
    generator_runs = [
        GeneratorRun.objects.create(**asked, requested_by=researcher, status=status, instances=instances)
        for status, instances in (("running", solved[:1]), ("done", solved))
    ]
    pages = {
        "researcher": [
            reverse("home"),
            reverse("games:list"),
            reverse("games:create"),
            reverse("games:scenarios"),
            reverse("games:scenario", args=[games["recipes"].scenario_id]),
            reverse("games:benchmarks"),
            reverse("studio:index"),
            reverse("studio:generate"),
            *(reverse("studio:generate_run", args=[run.pk]) for run in generator_runs),
            *(reverse("studio:new", args=[domain]) for domain in games),
            reverse("annotations:projects"),
            reverse("annotations:project", args=[project.pk]),
            reverse("annotations:report", args=[project.pk]),
            reverse("annotations:adjudicate", args=[project.pk]),
            reverse("studies:list"),
            reverse("studies:design", args=[study.pk]),
            reverse("studies:monitor", args=[study.pk]),
            reverse("studies:exports", args=[study.pk]),
            *(reverse("games:play", args=[game.pk]) for game in games.values()),
            *(reverse("games:replay", args=[game.pk]) for game in games.values()),
        ],
        "annotator": [reverse("annotations:queue"), reverse("annotations:label", args=[recipe.pk])],
        "participant": [reverse("home"), *(reverse("games:play", args=[game.pk]) for game in games.values())],
    }
    found: dict[str, list[str]] = {}
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}{reverse('accounts:login')}")
    found["visitor: the sign-in page"] = violations(page)
    for username, urls in pages.items():
        sign_in(page, live_server.url, username)
        for url in urls:
            page.goto(f"{live_server.url}{url}")
            found[f"{username}: {url}"] = violations(page)
        page.context.clear_cookies()
    broken = {where: rules for where, rules in found.items() if rules}
    assert len(found) >= 35 and not broken, broken
