"""Compiling a scenario once per process: a bounded cache of a domain's compiled scenarios.

A rule set turns a scenario definition (JSON) into an indexed, immutable value (the tasks'
``Compiled``, the recipes' ``Kitchen``, the itinerary's ``World``) that every state of a game shares.
Compiling costs far more than an action, so it happens once per process per scenario: the compiled
value is cached under its definition (its exact JSON text, see ``_exact_key``), and ``dump_state``
writes the digest of the definition it dumps (``scenario_key``) beside it, so that ``load_state`` of
a cold game finds the compiled scenario without encoding or parsing the definition again. A key that
is unknown to the process (a new worker, an evicted entry, a dump without a key) falls back to
compiling the stored definition, so a dumped state still restores on its own; the key is a pure
function of the dumped definition, so dumps are the same in every process.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import orjson


def scenario_key(definition: Mapping[str, Any], *extra: Hashable) -> str:
    """A digest of the definition's content (and of whatever else the compiled value depends on)."""
    text = json.dumps([definition, *extra], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _exact_key(definition: Mapping[str, Any], extra: tuple[Hashable, ...]) -> str | bytes:
    """The definition itself as JSON text, keys in their order (``orjson``: twenty times faster
    than a sorted ``json`` dump and twice ``marshal``, which was the key before and is the fallback
    for data JSON cannot write, such as non-string keys): a dict key that matches only a
    definition with the same JSON text. JSON data read back from the database may order its keys
    differently; it then misses once and is compiled again, which costs time but is never wrong.
    orjson writes NaN and the infinities as ``null``; no definition holds one (they are not JSON,
    ``games.schema`` refuses them in what is sent, each domain's validator in what it reads), so
    this costs nothing. Data neither can encode uses the digest."""
    try:
        return orjson.dumps((definition, extra))
    except TypeError:
        pass
    try:
        # version 2: no back-references, whose use follows reference counts and would vary
        return b"m" + marshal.dumps((definition, extra), 2)  # type: ignore[arg-type]
    except ValueError:
        return scenario_key(definition, *extra)


class UnknownScenario(LookupError):
    """A dump names its compiled scenario by key (instead of carrying the definition) and this
    process does not hold it: compile the scenario (start a game on its definition), then load."""


class CompiledScenarios[T]:
    """Compiled scenarios by key, the least recently used dropped beyond ``size``.

    ``by_digest``: also file each newly compiled value under the digest of its definition (the key
    ``dump_key`` gives), for a domain whose dumps name the compiled scenario instead of carrying
    the definition (``known``)."""

    def __init__(self, compile_: Callable[..., T], size: int = 512, *, by_digest: bool = False) -> None:
        self._compile = compile_
        self._size = size
        self._by_digest = by_digest
        self._entries: OrderedDict[str | bytes, T] = OrderedDict()
        # id(compiled) -> (compiled, the key of its dumped definition); holding the value keeps the id valid
        self._dump_keys: dict[int, tuple[T, str]] = {}
        # dump key -> compiled, for the values still in ``_entries`` (dropped with them)
        self._digests: dict[str, T] = {}
        self._lock = threading.Lock()

    def get(self, definition: Mapping[str, Any], *extra: Hashable, key: str | None = None) -> T:
        """The compiled ``definition`` (``extra``: other arguments of the compile function, part of
        the key). ``key`` is the one a dump stored: trusted when this process holds it; otherwise
        the definition is hashed and, if new, compiled (a bad definition raises and caches nothing)."""
        if key is not None:
            found = self._lookup(key)
            if found is not None:
                return found
        exact = _exact_key(definition, extra)
        found = self._lookup(exact)
        if found is None:
            found = self._compile(definition, *extra)
            self._store(exact, found)
            if self._by_digest:
                self.dump_key(found, definition, *extra)
        return found

    def known(self, key: str) -> T:
        """The compiled scenario filed under a dump's ``key`` (raises ``UnknownScenario``)."""
        found = self._lookup(key)
        if found is None:
            raise UnknownScenario(f"scenario {key} is not compiled in this process; compile its definition first")
        return found

    def dump_key(self, compiled: T, dumped: Mapping[str, Any], *extra: Hashable) -> str:
        """The key to write beside ``dumped`` (the definition a dump stores for ``compiled``); it
        is remembered, and ``compiled`` is filed under it for the next ``load_state``."""
        with self._lock:
            known = self._dump_keys.get(id(compiled))
        if known is not None and known[0] is compiled:
            return known[1]
        key = scenario_key(dumped, *extra)
        with self._lock:
            if len(self._dump_keys) >= 4 * self._size:
                self._dump_keys.clear()
                self._digests.clear()
            self._dump_keys[id(compiled)] = (compiled, key)
            self._digests[key] = compiled
        return key

    def _lookup(self, key: str | bytes) -> T | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
            return self._digests.get(key) if isinstance(key, str) else None

    def _store(self, key: str | bytes, compiled: T) -> None:
        with self._lock:
            self._entries.setdefault(key, compiled)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                _, dropped = self._entries.popitem(last=False)
                known = self._dump_keys.pop(id(dropped), None)
                if known is not None and known[0] is dropped:
                    self._digests.pop(known[1], None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._dump_keys.clear()
            self._digests.clear()
