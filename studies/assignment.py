"""Who plays which condition in which order: balanced Latin squares and group assignment.

Pure functions over condition indexes ``0..n-1``; the services store what they return.

A balanced Latin square (Williams design) orders ``n`` conditions so that every condition appears
once in every position and every condition immediately follows every other equally often
(first-order carry-over balance). For even ``n`` that takes ``n`` rows; for odd ``n`` the square
and its mirror image together (``2n`` rows).
"""

from __future__ import annotations

from collections.abc import Sequence


def balanced_latin_square(n: int) -> list[list[int]]:
    """The rows (condition orders) of a balanced Latin square over ``n`` conditions."""
    if n < 1:
        raise ValueError("a study needs at least one condition")
    rows = []
    for start in range(n):
        # 0, 1, n-1, 2, n-2, ... shifted by ``start``: the classic Williams construction.
        row = []
        for position in range(n):
            if position == 0:
                offset = 0
            elif position % 2 == 1:
                offset = (position + 1) // 2
            else:
                offset = n - position // 2
            row.append((start + offset) % n)
        rows.append(row)
    if n % 2 == 1 and n > 1:
        rows += [list(reversed(row)) for row in rows]
    return rows


def sequence_count(n_conditions: int, within: bool) -> int:
    """How many distinct sequences (Latin-square rows, or groups) the design has."""
    return len(balanced_latin_square(n_conditions)) if within else n_conditions


def next_sequence(counts: Sequence[int]) -> int:
    """The sequence for the next participant: the least used so far (ties: the lowest index).

    ``counts[i]`` is how many participants who still count (not dropped out) have sequence ``i``;
    filling the least used row keeps the design balanced even when people drop out.
    """
    if not counts:
        raise ValueError("no sequences to choose from")
    return min(range(len(counts)), key=lambda i: (counts[i], i))


def condition_order(sequence: int, n_conditions: int, within: bool) -> list[int]:
    """The conditions, in playing order, for sequence number ``sequence``."""
    if within:
        square = balanced_latin_square(n_conditions)
        return list(square[sequence % len(square)])
    return [sequence % n_conditions]


def episode_plan(order: Sequence[int], n_scenarios: int, every_scenario: bool) -> list[tuple[int, int]]:
    """(condition, scenario) pairs in playing order.

    By position (default): the k-th episode is played on scenario ``k mod n_scenarios``; since the
    Latin square puts every condition at every position equally often, each condition meets each
    scenario equally often. Every scenario: each condition is played on all scenarios in turn.
    """
    if n_scenarios < 1:
        raise ValueError("a study needs at least one scenario")
    if every_scenario:
        return [(condition, scenario) for condition in order for scenario in range(n_scenarios)]
    return [(condition, position % n_scenarios) for position, condition in enumerate(order)]
