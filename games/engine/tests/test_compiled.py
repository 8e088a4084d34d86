"""The per-process cache of compiled scenarios."""

import pytest

from games.engine.compiled import CompiledScenarios, UnknownScenario, scenario_key


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, definition: dict) -> tuple:
        self.calls += 1
        if "bad" in definition:
            raise ValueError("bad definition")
        return tuple(sorted(definition.items()))


def test_a_definition_is_compiled_once_and_equal_content_in_another_key_order_compiles_alike():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    first = cache.get({"a": 1, "b": 2})
    assert cache.get({"a": 1, "b": 2}) is first and compile_.calls == 1
    assert cache.get({"b": 2, "a": 1}) == first


def test_a_changed_definition_is_compiled_anew():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    definition = {"a": [1]}
    cache.get(definition)
    definition["a"].append(2)
    assert cache.get(definition) == (("a", [1, 2]),)


def test_a_dumped_key_finds_the_compiled_value_and_an_unknown_key_falls_back_to_the_definition():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    compiled = cache.get({"a": 1})
    key = cache.dump_key(compiled, {"a": 1})
    assert key == scenario_key({"a": 1})
    assert cache.get({"a": 1}, key=key) is compiled
    assert cache.get({"a": 2}, key="not-a-known-key") == (("a", 2),)
    assert compile_.calls == 2


def test_a_bad_definition_raises_every_time_and_is_not_cached():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    for _ in range(2):
        with pytest.raises(ValueError):
            cache.get({"bad": True})
    assert compile_.calls == 2


def test_the_least_recently_used_scenario_is_dropped_beyond_the_size():
    compile_ = Counting()
    cache = CompiledScenarios(compile_, size=2)
    for n in (1, 2, 1, 3):  # 2 is the least recently used when 3 arrives
        cache.get({"n": n})
    assert compile_.calls == 3
    cache.get({"n": 1})
    assert compile_.calls == 3
    cache.get({"n": 2})
    assert compile_.calls == 4


def test_known_finds_a_value_by_its_dumped_key_and_refuses_a_key_it_does_not_hold():
    cache = CompiledScenarios(Counting())
    compiled = cache.get({"a": 1})
    with pytest.raises(UnknownScenario):
        cache.known(scenario_key({"a": 1}))
    key = cache.dump_key(compiled, {"a": 1})
    assert cache.known(key) is compiled


def test_a_definition_json_cannot_write_is_still_compiled_once_and_told_apart_from_its_neighbours():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    first = cache.get({1: "a"})  # a non-string key: the marshal path
    assert cache.get({1: "a"}) is first and compile_.calls == 1
    assert cache.get({"1": "a"}) == (("1", "a"),) and compile_.calls == 2
    big = cache.get({"n": 2**70})  # a whole number beyond 64 bits: the marshal path too
    assert cache.get({"n": 2**70}) is big and compile_.calls == 3


def test_one_and_one_point_zero_and_true_are_different_definitions():
    compile_ = Counting()
    cache = CompiledScenarios(compile_)
    values = [cache.get({"n": value})[0][1] for value in (1, 1.0, True)]
    assert [type(value) for value in values] == [int, float, bool] and compile_.calls == 3
