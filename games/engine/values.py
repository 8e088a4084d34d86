"""Copying an immutable state with a few fields changed, cheaply.

Rules return a new state for every decision and most decisions change two or three fields of a
dozen. ``dataclasses.replace`` re-validates its keyword arguments and goes through ``__init__`` on
every call, which made it the largest single cost of a tasks or kitchen step (issue 18).
``evolver(cls)`` builds, once per class, a function with one keyword parameter per field that
copies the others slot by slot: the same result as ``replace`` (a new frozen value, the old one
untouched) at a quarter of the cost. Like ``dataclasses`` itself it generates that function's
source from the field names, because a loop over the fields would cost as much as ``replace``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType, MemberDescriptorType
from typing import Any

_OWN = "games.engine.values.own_cache"
#: ``field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)`` declares
#: something worked out from one value (its observation, say) and kept on it: not part of the value
#: (not compared, shown, serialised or passed to ``__init__``) and not carried into copies, which
#: ``evolve`` and ``dataclasses.replace`` start empty (None). Set it with ``object.__setattr__``.
OWN_CACHE: Mapping[str, bool] = MappingProxyType({_OWN: True})


def own_cache(value: Any, name: str) -> dict[Any, Any]:
    """The dict kept in ``value``'s ``OWN_CACHE`` field ``name``, made empty on first use."""
    cache = getattr(value, name)
    if cache is None:
        cache = {}
        object.__setattr__(value, name, cache)
    return cache


def _slot_setters(cls: type, names: list[str]) -> dict[str, Callable[[Any, Any], None]]:
    """``_s_<name>``: the ``__set__`` of each field's slot. Setting a slot through its descriptor
    skips the frozen class's ``__setattr__`` as ``object.__setattr__`` does, without looking the
    name up on every call (about 40 % cheaper)."""
    setters = {}
    for name in names:
        if not name.isidentifier() or name.startswith("__"):
            raise TypeError(f"{cls.__name__}.{name}: not a plain field name")
        slot = next((klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__), None)
        if not isinstance(slot, MemberDescriptorType):
            raise TypeError(f"{cls.__name__}.{name} is not a slot")
        setters[f"_s_{name}"] = slot.__set__
    return setters


def _checked(cls: type) -> list[dataclasses.Field[Any]]:
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} must be a slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} derives fields in __post_init__; keep the dataclass's own code")
    return list(dataclasses.fields(cls))


def evolver[T](cls: type[T]) -> Callable[..., T]:
    """``evolve(state, **changes)`` for the frozen, slotted dataclass ``cls`` (every field, derived
    ones with ``init=False`` included, is copied unless given; an ``OWN_CACHE`` field starts empty).
    Refused for a class with a ``__post_init__``, which the copy would skip."""
    fields = _checked(cls)
    names = [field.name for field in fields]
    params = ", ".join(f"{name}=_SAME" for name in names)
    body = "".join(
        f"    _s_{field.name}(new, {'None' if field.metadata.get(_OWN) else 'state.' + field.name} "
        f"if {field.name} is _SAME else {field.name})\n"
        for field in fields
    )
    source = f"def evolve(state, *, {params}):\n    new = _new(_cls)\n{body}    return new\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_SAME": object(), **_slot_setters(cls, names)}
    exec(compile(source, f"<evolver of {cls.__qualname__}>", "exec"), namespace)
    evolve: Callable[..., T] = namespace["evolve"]
    evolve.__doc__ = f"A copy of a {cls.__name__} with the given fields changed."
    return evolve


def quick_init[C: type](cls: C) -> C:
    """Give the frozen, slotted dataclass ``cls`` an ``__init__`` that sets its slots through their
    descriptors: the same signature, defaults and default factories as the generated one, at about
    60 % of its cost (for values made on every decision: events, transitions, runs). Apply it above
    ``@dataclass``. Refused for a class with a ``__post_init__`` or keyword-only fields."""
    fields = _checked(cls)
    names = [field.name for field in fields]
    namespace: dict[str, Any] = {"_FACTORY": object(), **_slot_setters(cls, names)}
    params, body = [], []
    for field in fields:
        name = field.name
        has_default = field.default is not dataclasses.MISSING
        factory = field.default_factory
        if factory is not dataclasses.MISSING:
            namespace[f"_f_{name}"] = factory
        if has_default:
            namespace[f"_d_{name}"] = field.default
        if not field.init:
            if has_default:
                body.append(f"    _s_{name}(self, _d_{name})")
            elif factory is not dataclasses.MISSING:
                body.append(f"    _s_{name}(self, _f_{name}())")
            continue
        if field.kw_only:
            raise TypeError(f"{cls.__name__}.{name}: keyword-only fields are not supported")
        if has_default:
            params.append(f"{name}=_d_{name}")
            body.append(f"    _s_{name}(self, {name})")
        elif factory is not dataclasses.MISSING:
            params.append(f"{name}=_FACTORY")
            body.append(f"    _s_{name}(self, _f_{name}() if {name} is _FACTORY else {name})")
        else:
            params.append(name)
            body.append(f"    _s_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(compile(source, f"<quick __init__ of {cls.__qualname__}>", "exec"), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__dict__["__init__"].__doc__  # the one @dataclass wrote (quick_init goes above it)
    cls.__init__ = init  # type: ignore[misc]
    return cls


_EVOLVERS: dict[type, Callable[..., Any]] = {}


def evolve[T](value: T, **changes: Any) -> T:
    """``dataclasses.replace(value, **changes)`` for a slotted dataclass, through its ``evolver``."""
    cls = type(value)
    copy = _EVOLVERS.get(cls)
    if copy is None:
        copy = _EVOLVERS[cls] = evolver(cls)
    return copy(value, **changes)
