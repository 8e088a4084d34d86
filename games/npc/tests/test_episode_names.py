"""A run page names its episodes as people read them: the scenario's title and its settings in
words, the key (what the CSV and the command line use) on hover."""

from __future__ import annotations

from django.urls import reverse

from games.npc import benchmarks
from games.npc.episode_names import episode_name
from games.npc.tasksets import build_items


def test_a_key_reads_as_titles_and_settings():
    titles = {"bundled/Omelette_Tomato-Soup": "Quick lunch"}
    name = episode_name("bundled/Omelette_Tomato-Soup|time_constraints=True|agents=1|seed=0", titles)
    assert (name.title, name.settings) == ("Quick lunch", "with time constraints · seed 0")
    name = episode_name("a+b|alpha=1.5|agents=3|seed=2|attempt=1", {"a": "Salad bar"})
    assert (name.title, name.settings) == ("Salad bar + b", "alpha 1.5 · 3 agents · seed 2 · attempt 2")


def test_the_run_page_names_episodes_in_words_and_leaves_out_llm_columns_for_a_baseline(
    tasks_scenarios, client, researcher
):
    items = build_items("tasks", patterns=["test/*"], task_counts=[1])
    run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "random", items).pk)
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert run.results.count() == 3
    for result in run.results.all():
        episode = reverse("games:benchmark_episode", args=[run.pk, result.pk])
        assert f'<td title="{result.key}"><a class="episode-title" href="{episode}">chores ' in page
    assert '<span class="hint">seed 0</span>' in page
    assert "<code>test/chores1|" not in page  # the key is not the episode's name
    assert "LLM calls" not in page and "Cost ($)" not in page  # a random baseline calls no model
