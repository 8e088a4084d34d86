"""Whole numbers from query strings and forms, read one way everywhere.

``str.isdigit()`` is true for "²" and "١٢", which ``int()`` refuses or reads as another number,
and a number past 2**63 - 1 overflows SQLite's integers: both were server errors.
"""

from __future__ import annotations

LARGEST = 2**63 - 1


def whole_number(text: str | None, *, largest: int = LARGEST) -> int | None:
    """``text`` as a whole number from 0 to ``largest`` (ASCII digits only: "12", not " 12"), else None."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(largest)):
        return None
    value = int(text)
    return value if value <= largest else None
