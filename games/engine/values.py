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
from types import MappingProxyType
from typing import Any

_OWN = "games.engine.values.own_cache"
#: ``field(default=None, init=False, compare=False, repr=False, metadata=OWN_CACHE)`` declares
#: something worked out from one value (its observation, say) and kept on it: not part of the value
#: (not compared, shown, serialised or passed to ``__init__``) and not carried into copies, which
#: ``evolve`` and ``dataclasses.replace`` start empty (None). Set it with ``object.__setattr__``.
OWN_CACHE: Mapping[str, bool] = MappingProxyType({_OWN: True})


def evolver[T](cls: type[T]) -> Callable[..., T]:
    """``evolve(state, **changes)`` for the frozen, slotted dataclass ``cls`` (every field, derived
    ones with ``init=False`` included, is copied unless given; an ``OWN_CACHE`` field starts empty).
    Refused for a class with a ``__post_init__``, which the copy would skip."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} must be a slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} derives fields in __post_init__; use dataclasses.replace")
    fields = dataclasses.fields(cls)
    names = [field.name for field in fields]
    for name in names:
        if not name.isidentifier() or name.startswith("__"):
            raise TypeError(f"{cls.__name__}.{name}: not a plain field name")
    params = ", ".join(f"{name}=_SAME" for name in names)
    body = "".join(
        f"    _set(new, {field.name!r}, {'None' if field.metadata.get(_OWN) else 'state.' + field.name} "
        f"if {field.name} is _SAME else {field.name})\n"
        for field in fields
    )
    source = f"def evolve(state, *, {params}):\n    new = _new(_cls)\n{body}    return new\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "_set": object.__setattr__, "_cls": cls, "_SAME": object()}
    exec(compile(source, f"<evolver of {cls.__qualname__}>", "exec"), namespace)
    evolve: Callable[..., T] = namespace["evolve"]
    evolve.__doc__ = f"A copy of a {cls.__name__} with the given fields changed."
    return evolve


_EVOLVERS: dict[type, Callable[..., Any]] = {}


def evolve[T](value: T, **changes: Any) -> T:
    """``dataclasses.replace(value, **changes)`` for a slotted dataclass, through its ``evolver``."""
    cls = type(value)
    copy = _EVOLVERS.get(cls)
    if copy is None:
        copy = _EVOLVERS[cls] = evolver(cls)
    return copy(value, **changes)
