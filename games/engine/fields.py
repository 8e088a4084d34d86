"""Naming the closest known word to a misspelt one, for messages about authored content: a field
("interruptable"), a dish ("salza") or a sight. One cutoff everywhere, so every format answers a
typo the same way."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

CUTOFF = 0.75  # how close a known word must be to be offered (difflib's ratio)


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to ``word``, or None when none is close."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=CUTOFF)
    return close[0] if close else None


def unknown_field(raw: Mapping[str, Any], known: Sequence[str], what: str = "field") -> tuple[str, str] | None:
    """The first key of ``raw`` that is not one of ``known`` and a hint for it ("did you mean
    'beta'?", else "the fields are ..."), or None when every key is known."""
    for key in raw:
        if key not in known:
            near = closest(str(key), known)
            return str(key), f"did you mean {near!r}?" if near else f"the {what}s are {', '.join(known)}"
    return None
