"""Balanced Latin squares and group assignment (pure)."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studies.assignment import balanced_latin_square, condition_order, episode_plan, next_sequence, sequence_count


@pytest.mark.parametrize("n", range(1, 9))
def test_every_row_is_a_permutation_and_every_position_holds_every_condition_equally(n):
    square = balanced_latin_square(n)
    assert len(square) == (2 * n if n % 2 and n > 1 else n)
    for row in square:
        assert sorted(row) == list(range(n))
    for position in range(n):
        counts = Counter(row[position] for row in square)
        assert set(counts) == set(range(n))
        assert len(set(counts.values())) == 1


@pytest.mark.parametrize("n", range(2, 9))
def test_every_condition_follows_every_other_equally_often(n):
    square = balanced_latin_square(n)
    pairs = Counter(pair for row in square for pair in pairwise(row))
    expected = {(a, b) for a in range(n) for b in range(n) if a != b}
    assert set(pairs) == expected
    assert len(set(pairs.values())) == 1  # once each (even n) or twice each (odd n)


def test_the_classic_four_condition_square():
    assert balanced_latin_square(4) == [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]


def test_a_study_needs_a_condition():
    with pytest.raises(ValueError, match="at least one condition"):
        balanced_latin_square(0)


def test_next_sequence_fills_the_least_used_row_lowest_first():
    assert next_sequence([0, 0, 0, 0]) == 0
    assert next_sequence([1, 0, 0, 0]) == 1
    assert next_sequence([2, 2, 1, 2]) == 2  # a drop-out freed row 2


@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=60))
def test_assigning_participants_in_turn_keeps_rows_balanced(n, participants):
    within = True
    counts = [0] * sequence_count(n, within)
    for _ in range(participants):
        counts[next_sequence(counts)] += 1
    assert max(counts) - min(counts) <= 1


def test_between_subject_gives_one_condition_per_group():
    assert sequence_count(3, within=False) == 3
    assert [condition_order(k, 3, within=False) for k in range(4)] == [[0], [1], [2], [0]]


def test_episode_plan_by_position_pairs_positions_with_scenarios():
    assert episode_plan([2, 0, 1], 2, every_scenario=False) == [(2, 0), (0, 1), (1, 0)]


def test_episode_plan_every_scenario_plays_each_condition_on_all():
    assert episode_plan([1, 0], 2, every_scenario=True) == [(1, 0), (1, 1), (0, 0), (0, 1)]


def test_by_position_balances_condition_and_scenario_across_the_square():
    n = 4
    meetings = Counter(
        pair for k in range(n) for pair in episode_plan(condition_order(k, n, within=True), n, every_scenario=False)
    )
    assert set(meetings.values()) == {1}
    assert len(meetings) == n * n
