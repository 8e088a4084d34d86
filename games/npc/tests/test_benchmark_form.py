"""The benchmark form asks for time-constraint variants only of domains whose items come in both."""

import pytest

from games.npc.forms import BenchmarkForm


def _form(domain: str, constraints: list[str]) -> BenchmarkForm:
    return BenchmarkForm(
        {"domain": domain, "agent": "random", "max_turns": "50", "tasks": "1", "constraints": constraints}
    )


def test_recipes_needs_at_least_one_constraint_variant() -> None:
    form = _form("recipes", [])
    assert not form.is_valid()
    assert "tick at least one" in " ".join(form.errors["constraints"])
    assert _form("recipes", ["without"]).is_valid(), _form("recipes", ["without"]).errors


@pytest.mark.parametrize("domain", ["tasks", "kitchen", "itinerary"])
def test_other_domains_ignore_the_constraints_box(domain: str) -> None:
    form = _form(domain, [])
    assert form.is_valid(), form.errors


def test_each_agent_choice_says_whether_it_calls_a_model() -> None:
    """ "dispatcher" read as the studio's heuristic dispatcher: a run meant to need no model started
    15 episodes on the local LLM."""
    from games.agents.dispatcher import BENCHMARK_AGENTS

    labels = dict(BenchmarkForm().fields["agent"].choices)
    assert set(labels) == set(BENCHMARK_AGENTS)
    assert labels["dispatcher"].startswith("dispatcher (LLM")
    assert labels["planner"].startswith("planner (no LLM") and labels["random"].startswith("random (no LLM")
    assert all("LLM" in label for label in labels.values())


def test_the_page_comes_with_only_its_domains_fields_shown(client, researcher) -> None:
    """ "Tasks:" (TimeArena's #Task) stood in the new-run form of every domain."""
    from django.urls import reverse

    client.force_login(researcher)
    url = reverse("games:benchmarks")
    tasks = client.get(url).content.decode()  # the first domain
    assert 'data-domains="tasks">' in tasks and 'data-domains="kitchen" hidden>' in tasks
    kitchen = client.get(url, {"domain": "kitchen"}).content.decode()  # as linked
    assert 'data-domains="tasks" hidden>' in kitchen and 'data-domains="kitchen">' in kitchen
    # as sent: a refused form shows the fields of the domain it was sent for
    sent = client.post(url, {"domain": "recipes", "agent": "random", "max_turns": "x"}).content.decode()
    assert 'data-domains="recipes">' in sent and 'data-domains="tasks" hidden>' in sent
    # the prompt's parts as the agent has them: random has no hints to switch
    assert 'data-agents="react plan-and-solve dispatcher" hidden>' in sent
