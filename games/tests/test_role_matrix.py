"""Every URL pattern x every role has an expected answer, in one table generated against the
URLconf: a new view that is not in ``LEVELS`` fails this test until someone decides who may use it.

Levels (what each role gets):
- ``public``: everyone gets the page (or a 404 for an unknown object);
- ``login``: any signed-in user; anonymous users go to the login page;
- ``annotator`` / ``researcher``: that role (researchers may label too); others 403, anonymous login;
- ``game``: a game's own players and researchers; anyone else 404 (not told it exists);
  ``api_game`` the same through the API, where no credentials are a 401;
- ``token``: the token API: without a token 401;
- ``api_list``: the API's scenario list: a token's account or, signed in, a researcher (as the site's
  scenario pages); other sessions 403, no credentials 401;
- ``nowhere``: any other /api/ address, a JSON 404 for everyone;
- ``admin``: Django's admin: researchers get in (its per-model permissions decide inside), others
  are sent to its login page.
Objects named in a URL that do not exist (pk 999999) answer 404 to whoever passes the role check.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from games import services

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "participant", "annotator", "researcher")
LEVELS: dict[str, str] = {
    # --- site -------------------------------------------------------------------------------
    "home": "public",
    "healthz": "public",
    "login": "public",
    "logout": "login",
    "accounts:login": "public",
    "accounts:logout": "public",
    "accounts:tokens": "researcher",
    "accounts:revoke_token": "researcher",
    "accounts:new_annotator": "researcher",
    # --- games ------------------------------------------------------------------------------
    "games:scenarios": "researcher",
    "games:scenario": "researcher",
    "games:list": "researcher",
    "games:mine": "login",
    "games:stop_left_paused": "researcher",
    "games:create": "researcher",
    "games:play": "game",
    "games:control": "game",
    "games:replay": "game",
    "games:api_scenarios": "api_list",  # a token's account, or a researcher's session
    "games:api_create": "token",
    "games:api_game": "api_game",
    "games:api_events": "api_game",
    "games:api_not_found": "nowhere",  # any other /api/ address: a JSON 404 for everyone
    "games:llm_calls": "researcher",
    "games:benchmarks": "researcher",
    "games:benchmark": "researcher",
    "games:benchmark_compare": "researcher",
    "games:benchmark_reference": "researcher",
    "games:benchmark_stop": "researcher",
    "games:benchmark_resume": "researcher",
    "games:benchmark_again": "researcher",
    "games:benchmark_csv": "researcher",
    "games:benchmark_episode": "researcher",
    "studio:index": "researcher",
    "studio:generate": "researcher",
    "studio:generate_run": "researcher",
    "studio:generate_stop": "researcher",
    "studio:generate_save": "researcher",
    "studio:generate_open": "researcher",
    "studio:new": "researcher",
    "studio:check": "researcher",
    "studio:save": "researcher",
    "studio:edit": "researcher",
    "studio:export": "researcher",
    "studio:preview": "researcher",
    # --- annotations ------------------------------------------------------------------------
    "annotations:queue": "annotator",
    "annotations:label": "annotator",
    "annotations:submit": "annotator",
    "annotations:save": "annotator",
    "annotations:projects": "researcher",
    "annotations:project_new": "researcher",
    "annotations:label_scenario": "researcher",
    "annotations:project": "researcher",
    "annotations:import": "researcher",
    "annotations:export": "researcher",
    "annotations:report": "researcher",
    "annotations:adjudicate": "researcher",
    "annotations:save_gold": "researcher",
    "annotations:accept_unanimous": "researcher",
    "annotations:apply_gold": "researcher",
    "annotations:preannotate": "researcher",
    "annotations:suggestions": "researcher",
    "annotations:run": "researcher",
    # --- studies ----------------------------------------------------------------------------
    "studies:list": "researcher",
    "studies:design": "researcher",
    "studies:save_basics": "researcher",
    "studies:set_status": "researcher",
    "studies:add_condition": "researcher",
    "studies:remove_condition": "researcher",
    "studies:add_scenario": "researcher",
    "studies:remove_scenario": "researcher",
    "studies:add_page": "researcher",
    "studies:remove_page": "researcher",
    "studies:add_item": "researcher",
    "studies:save_item": "researcher",
    "studies:remove_item": "researcher",
    "studies:reset_items": "researcher",
    "studies:delete_pilots": "researcher",
    "studies:run_pilots": "researcher",
    "studies:pilot_run": "researcher",
    "studies:monitor": "researcher",
    "studies:drop": "researcher",
    "studies:message": "researcher",
    "studies:release": "researcher",
    "studies:analysis": "researcher",
    "studies:exports": "researcher",
    "studies:dictionary": "researcher",
    "studies:bonuses": "researcher",
    "studies:export": "researcher",
    "studies:start_export": "researcher",
    "studies:export_job": "researcher",
    "studies:export_job_download": "researcher",
    "studies:entry": "public",  # a study link: anyone (an unknown study is 404)
    "studies:step": "public",
    "studies:lobby": "public",  # a participant's lobby (no participation: back to the study link)
}

EXPECTED = {
    "public": {"anonymous": "ok", "participant": "ok", "annotator": "ok", "researcher": "ok"},
    "login": {"anonymous": "login", "participant": "ok", "annotator": "ok", "researcher": "ok"},
    "annotator": {"anonymous": "login", "participant": "forbidden", "annotator": "ok", "researcher": "ok"},
    "researcher": {"anonymous": "login", "participant": "forbidden", "annotator": "forbidden", "researcher": "ok"},
    "game": {"anonymous": "login", "participant": "hidden", "annotator": "hidden", "researcher": "ok"},
    "api_game": {"anonymous": "unauthorized", "participant": "hidden", "annotator": "hidden", "researcher": "ok"},
    "api_list": {"anonymous": "unauthorized", "participant": "forbidden", "annotator": "forbidden", "researcher": "ok"},
    "nowhere": {"anonymous": "hidden", "participant": "hidden", "annotator": "hidden", "researcher": "hidden"},
    "token": {
        "anonymous": "unauthorized",
        "participant": "unauthorized",
        "annotator": "unauthorized",
        "researcher": "unauthorized",
    },
    # the admin's own per-model permissions decide inside it: researchers get in, never others
    "admin": {"anonymous": "login", "participant": "login", "annotator": "login", "researcher": "staff"},
}


def patterns(resolver=None, prefix="", namespace=""):
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            inner = namespace + (f"{entry.namespace}:" if entry.namespace else "")
            yield from patterns(entry, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            yield namespace + (entry.name or ""), prefix + str(entry.pattern), entry


def level_of(name: str) -> str | None:
    if name in ("admin:login", "admin:logout"):
        return "public"
    if name.startswith("admin:"):
        return "admin"
    return LEVELS.get(name)


VALUES = {"domain": "tasks", "fmt": "csv", "table": "episodes", "slug": "no-such-study", "object_id": "1"}


def url_for(route: str, game_pk: int, level: str) -> str:
    """The route with every parameter filled: the real game for game-level pages, else a pk
    nothing has (the role check comes first, so it decides before any lookup)."""
    route = route.replace("^", "").replace("$", "")
    route = re.sub(r"\(\?P<app_label>[^)]*\)\)?", "games", route)
    route = re.sub(r"\(\?P<\w+>\.\*\)", "nothing-here/", route)

    def value(match: re.Match[str]) -> str:
        converter, name = match.group(1), match.group(2)
        if converter == "int":
            return str(game_pk if level in ("game", "api_game") and name == "pk" else 999999)
        return VALUES.get(name, "x")

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: value(re.match(r"<(?:(\w+):)?(\w+)>", m.group(0))), route)


def answer(response) -> str:
    status = response.status_code
    if status >= 500:
        return f"server error {status}"
    if status in (301, 302) and "login" in response.get("Location", ""):
        return "login"
    return {401: "unauthorized", 403: "forbidden"}.get(status, "hidden" if status == 404 else "ok")


@pytest.fixture
def people(django_user_model, researcher, annotator, participant):
    owner = django_user_model.objects.create_user("owner")
    return {"participant": participant, "annotator": annotator, "researcher": researcher, "owner": owner}


def test_every_url_pattern_has_an_expected_answer_for_every_role(toy_scenario, people):
    game = services.create_game("test/toy", [{"kind": "human", "user": people["owner"]}], created_by=people["owner"])
    found = list(patterns())
    missing = sorted({name or route for name, route, _ in found if level_of(name) is None})
    assert not missing, f"add these URL names to LEVELS (who may use them?): {missing}"
    wrong = []
    for name, route, _ in found:
        level = level_of(name)
        url = url_for(route, game.pk, level)
        for role in ROLES:
            client = Client()
            if role != "anonymous":
                client.force_login(people[role])
            response = client.get(url)
            if response.status_code == 405:
                response = client.post(url, {})
            got = answer(response)
            expected = EXPECTED[level][role]
            # a page the role may use answers "ok" or, for an object that does not exist, 404
            passed = got in ("ok", "hidden", "forbidden") if expected == "staff" else got == expected
            if not passed and not (expected == "ok" and got == "hidden"):
                wrong.append(f"{name or route} [{level}] as {role}: expected {expected}, got {got} ({url})")
    assert not wrong, "\n".join(wrong)
