"""The registry of domains: every domain is found by name and exact rule-set id, and anything
unknown is an error naming what exists (no silent fallback to another version or domain)."""

from __future__ import annotations

import pytest

from games.engine import registry
from games.engine.domain import DescriptorError, Domain, resolve


def test_the_four_games_are_registered_in_order():
    assert registry.domains()[:4] == ["tasks", "recipes", "kitchen", "itinerary"]


@pytest.mark.parametrize("name", ["tasks", "recipes", "kitchen", "itinerary"])
def test_name_and_exact_id_give_the_same_rules(name):
    rules = registry.get(name)
    assert rules.id == f"{name}-v1" and rules.domain == name
    assert registry.get(f"{name}-v1") is rules


def test_an_unknown_version_is_an_error_naming_the_versions():
    with pytest.raises(registry.UnknownRuleSet, match=r"tasks-v7.*tasks-v1"):
        registry.get("tasks-v7")


def test_an_unknown_domain_is_an_error_naming_the_domains():
    with pytest.raises(registry.UnknownDomain, match=r"chess.*tasks, recipes, kitchen, itinerary"):
        registry.get("chess")
    with pytest.raises(registry.UnknownDomain):
        registry.descriptor("chess")


@pytest.mark.parametrize("name", ["tasks", "recipes", "kitchen", "itinerary"])
def test_every_named_part_imports(name):
    domain = registry.descriptor(name)
    for attribute in registry.PARTS:
        path = getattr(domain, attribute)
        assert path is None or resolve(path) is not None


def test_a_missing_part_is_an_error_not_a_fallback():
    with pytest.raises(ModuleNotFoundError, match=r"games\.planners\.nothing_npc"):
        resolve("games.planners.nothing_npc:npc_policy")
    with pytest.raises(DescriptorError, match="no 'nothing'"):
        resolve("games.planners.tasks_npc:nothing")


def test_a_rule_set_must_be_named_for_its_domain():
    with pytest.raises(DescriptorError, match="toy-vN"):
        Domain(name="toy", title="Toy", rule_sets={"other-v1": "x:y"}, llm_title="toy", npc_policy="x:y")


def test_register_refuses_a_second_domain_of_the_same_name():
    clash = Domain(
        name="tasks",
        title="Tasks",
        rule_sets={"tasks-v1": "games.domains.tasks.rules:RULES"},
        llm_title="t",
        npc_policy="games.planners.tasks_npc:npc_policy",
    )
    with pytest.raises(DescriptorError, match="already registered"):
        registry.register(clash)


def test_one_waiting_rule_per_domain():
    assert registry.descriptor("kitchen").is_wait("noop(agent1)")
    assert not registry.descriptor("kitchen").is_wait("goto(agent1, pot0)")
    assert registry.descriptor("itinerary").is_wait("stay_in(Paris, 2 hours)")
    assert registry.descriptor("itinerary").is_wait("wait until 10:00")
    assert registry.descriptor("tasks").is_wait("wait")
    assert not registry.descriptor("tasks").is_wait("take kettle")


def test_start_up_check_names_a_missing_module():
    from games.engine.domain import check_exists

    registry.check_all()  # the registered games are whole
    with pytest.raises(DescriptorError, match=r"games\.planners\.nothing_npc"):
        check_exists("games.planners.nothing_npc:npc_policy")
    with pytest.raises(DescriptorError, match="nowhere"):
        check_exists("nowhere.at_all:thing")


def test_the_optional_parts_decide_which_lists_a_domain_is_in():
    assert registry.having("generator") == ["tasks", "recipes", "kitchen", "itinerary"]  # the toy has none
    registry.register(
        Domain(
            name="spare",
            title="Spare",
            rule_sets={"spare-v1": "games.domains.tasks.rules:RULES"},
            llm_title="s",
            npc_policy="games.planners.tasks_npc:npc_policy",
            generator="games.generators.tasks",
        )
    )
    try:
        assert registry.having("generator")[-1] == "spare"
        assert "spare" not in registry.having("authoring")
    finally:
        registry.unregister("spare")
