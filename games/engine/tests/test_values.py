"""Copying states with ``evolve``: the same value ``dataclasses.replace`` gives, the original untouched."""

import dataclasses

import pytest

from games.engine.values import OWN_CACHE, evolve, evolver, quick_init


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    label: str = ""
    memo: object = dataclasses.field(default=None, compare=False, repr=False)


def test_evolve_gives_what_replace_gives_and_leaves_the_original_alone():
    point = Point(1, 2, "a")
    moved = evolve(point, y=5, label="b")
    assert moved == dataclasses.replace(point, y=5, label="b") == Point(1, 5, "b")
    assert point == Point(1, 2, "a")
    assert evolve(point) == point and evolve(point) is not point


def test_the_copy_is_frozen_and_an_unknown_field_is_refused():
    moved = evolver(Point)(Point(1), x=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.x = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        evolve(Point(1), z=3)


def test_classes_it_cannot_copy_faithfully_are_refused():
    @dataclasses.dataclass(frozen=True)
    class Plain:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived:
        x: int

        def __post_init__(self) -> None:
            pass

    for cls in (Plain, Derived):
        with pytest.raises(TypeError):
            evolver(cls)


@dataclasses.dataclass(frozen=True, slots=True)
class Seen:
    x: int
    view: object = dataclasses.field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)


def test_an_own_cache_is_not_part_of_the_value_and_copies_start_without_it():
    seen = Seen(1)
    object.__setattr__(seen, "view", "x is 1")
    assert seen == Seen(1) and "view" not in repr(seen)
    assert evolve(seen, x=2).view is None
    assert evolve(seen).view is None
    assert dataclasses.replace(seen, x=2).view is None
    assert seen.view == "x is 1"


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class Quick:
    x: int
    y: int = 2
    tags: list = dataclasses.field(default_factory=list)
    derived: object = dataclasses.field(default="d", init=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Generated:
    x: int
    y: int = 2
    tags: list = dataclasses.field(default_factory=list)
    derived: object = dataclasses.field(default="d", init=False)


def test_quick_init_builds_what_the_generated_init_builds():
    for args, kwargs in [((1,), {}), ((1, 5), {}), ((1,), {"tags": [3]}), ((), {"x": 4, "y": 0})]:
        quick, generated = Quick(*args, **kwargs), Generated(*args, **kwargs)
        assert [getattr(quick, f) for f in ("x", "y", "tags", "derived")] == [
            getattr(generated, f) for f in ("x", "y", "tags", "derived")
        ]
    assert Quick(1).tags is not Quick(1).tags  # a fresh default per value
    assert dataclasses.replace(Quick(1, tags=[1]), y=7) == Quick(1, 7, [1])
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Quick(1).x = 2  # type: ignore[misc]


def test_quick_init_refuses_what_it_cannot_build_faithfully():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        x: int

    for cls in (Derived, KeywordOnly):
        with pytest.raises(TypeError):
            quick_init(cls)
