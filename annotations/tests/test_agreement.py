"""Agreement statistics: hand-worked examples from the literature and cross-checks with the libraries."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from annotations import agreement


def _ratings_from_columns(columns: dict[str, list[str | None]]) -> dict[str, dict[str, str]]:
    n = len(next(iter(columns.values())))
    return {f"item{i:02d}": {a: labels[i] for a, labels in columns.items() if labels[i] is not None} for i in range(n)}


def test_cohen_kappa_hand_worked():
    # 10 items: the annotators agree on 8 (p_o = .8); each says "a" 5 times (p_e = .5): kappa = .3/.5 = .6
    ratings = _ratings_from_columns(
        {
            "ann": ["a", "a", "a", "a", "c", "c", "c", "c", "a", "c"],
            "bob": ["a", "a", "a", "c", "c", "c", "c", "a", "a", "c"],
        }
    )
    assert agreement.cohen_kappa(ratings, "ann", "bob") == pytest.approx(0.6)
    assert agreement.cohen_kappas(ratings) == {"ann|bob": pytest.approx(0.6)}
    assert agreement.percent_agreement(ratings) == pytest.approx(80.0)


def test_fleiss_kappa_hand_worked_wikipedia_table():
    # Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories; P = .378, Pe = .213, kappa = .210
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = {}
    for i, counts in enumerate(table):
        labels = [f"cat{c}" for c, n in enumerate(counts) for _ in range(n)]
        ratings[f"item{i}"] = {f"rater{r:02d}": label for r, label in enumerate(labels)}
    assert agreement.fleiss(ratings) == pytest.approx(0.20993, abs=1e-4)
    assert agreement.percent_agreement(ratings) == pytest.approx(37.80, abs=0.01)


def test_krippendorff_alpha_hand_worked_with_missing_labels():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the nominal example: alpha = .743
    ratings = _ratings_from_columns(
        {
            "A": ["1", "2", "3", "3", "2", "1", "4", "1", "2", None, None, None],
            "B": ["1", "2", "3", "3", "2", "2", "4", "1", "2", "5", None, "3"],
            "C": [None, "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", None],
            "D": ["1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", None],
        }
    )
    assert agreement.krippendorff_alpha(ratings) == pytest.approx(0.743, abs=5e-4)
    # Fleiss uses only the items every annotator labelled (here 8 of 12).
    assert agreement.complete_items(ratings) == [f"item{i:02d}" for i in range(1, 9)]


def test_percent_agreement_and_disputed_items_hand_worked():
    ratings = {
        "Tea/1": {"a": "x", "b": "x", "c": "x"},  # all agree: share 1
        "Tea/2": {"a": "x", "b": "x", "c": "y"},  # 1 of 3 pairs agree
        "Tea/3": {"a": "x", "b": "y", "c": "z"},  # none agree
        "Tea/4": {"a": "x"},  # one label: not comparable
    }
    assert agreement.percent_agreement(ratings) == pytest.approx(100 * (1 + 1 / 3 + 0) / 3)
    disputed = agreement.disputed_items(ratings)
    assert [row["item"] for row in disputed] == ["Tea/3", "Tea/2"]
    assert disputed[0]["disagreement"] == pytest.approx(1.0)
    assert disputed[1]["labels"] == {"x": 2, "y": 1}


def test_confusion_matrices_count_pairs():
    ratings = _ratings_from_columns({"a": ["x", "x", "y", "y"], "b": ["x", "y", "y", "y"]})
    assert agreement.confusion(ratings, "a", "b") == {
        "rows": "a",
        "columns": "b",
        "labels": ["x", "y"],
        "matrix": [[1, 1], [0, 2]],
    }
    assert agreement.pooled_confusion(ratings)["matrix"] == [[2, 1], [1, 4]]


def test_undefined_coefficients_are_none_not_nan():
    same = _ratings_from_columns({"a": ["x", "x"], "b": ["x", "x"]})
    assert agreement.cohen_kappa(same, "a", "b") is None
    assert agreement.fleiss(same) is None
    assert agreement.krippendorff_alpha(same) is None
    assert agreement.percent_agreement(same) == 100.0
    assert agreement.fleiss({}) is None and agreement.percent_agreement({}) is None


def test_model_scores_hand_worked():
    gold = {"i1": "a", "i2": "a", "i3": "b", "i4": "b"}
    predicted = {"i1": "a", "i2": "b", "i3": "b"}  # i4 unanswered counts as wrong
    scores = agreement.model_scores(gold, predicted)
    # a: P 1/1, R 1/2, F1 2/3; b: P 1/2, R 1/2, F1 1/2 -> macro P .75, R .5, F1 7/12
    assert scores["precision"] == pytest.approx(0.75)
    assert scores["recall"] == pytest.approx(0.5)
    assert scores["f1"] == pytest.approx(7 / 12)
    assert scores["accuracy"] == pytest.approx(0.5)
    assert (scores["items"], scores["answered"]) == (4, 3)


def test_majority_is_stable_on_ties():
    assert agreement.majority({"a": "y", "b": "x", "c": "y"}) == "y"
    assert agreement.majority({"a": "y", "b": "x"}) == "x"
    assert agreement.majority({}) is None


def test_report_shape_and_pairs_in_sorted_order():
    ratings = _ratings_from_columns({"zoe": ["x", "y", "x"], "amy": ["x", "y", "y"], "max": ["x", "x", "y"]})
    report = agreement.report({"concurrency": ratings})
    row = report["properties"]["concurrency"]
    assert set(row["cohen_kappa"]) == {"amy|max", "amy|zoe", "max|zoe"}
    assert {"fleiss_kappa", "krippendorff_alpha", "percent_agreement"} <= set(row)
    assert report["overall"]["items"] == 3


labels = st.sampled_from(["autonomous", "continuous", "other"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=3, max_size=40))
def test_cohen_kappa_matches_statsmodels_contingency_table(pairs):
    ratings = {f"i{n}": {"a": x, "b": y} for n, (x, y) in enumerate(pairs)}
    ours = agreement.cohen_kappa(ratings, "a", "b")
    cats = agreement.categories_of(ratings)
    table = np.zeros((len(cats), len(cats)))
    for x, y in pairs:
        table[cats.index(x), cats.index(y)] += 1
    with np.errstate(all="ignore"):
        theirs = float(cohens_kappa(table, return_results=False))
    if not math.isfinite(theirs):
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(labels, min_size=3, max_size=3), min_size=2, max_size=30))
def test_fleiss_matches_statsmodels_and_the_textbook_formula(rows):
    ratings = {f"i{n}": {f"r{k}": label for k, label in enumerate(row)} for n, row in enumerate(rows)}
    cats = agreement.categories_of(ratings)
    table = np.array([[row.count(c) for c in cats] for row in rows], dtype=float)
    n = 3
    p_items = ((table * (table - 1)).sum(axis=1) / (n * (n - 1))).mean()
    p_cats = table.sum(axis=0) / table.sum()
    p_expected = (p_cats**2).sum()
    ours = agreement.fleiss(ratings)
    if p_expected == 1:
        assert ours is None
        return
    with np.errstate(all="ignore"):
        assert ours == pytest.approx(float(fleiss_kappa(table)), abs=1e-9)
    assert ours == pytest.approx((p_items - p_expected) / (1 - p_expected), abs=1e-9)
    assert agreement.percent_agreement(ratings) == pytest.approx(100 * p_items)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=4, max_size=40))
def test_alpha_for_two_annotators_matches_the_coincidence_formula(pairs):
    # For two coders and no missing data, nominal alpha = 1 - (n - 1) * D_o / D_e on the coincidence matrix.
    ratings = {f"i{k}": {"a": x, "b": y} for k, (x, y) in enumerate(pairs)}
    ours = agreement.krippendorff_alpha(ratings)
    values = [v for pair in pairs for v in pair]
    n = len(values)
    disagreeing = sum(2 for x, y in pairs if x != y)
    counts = {c: values.count(c) for c in set(values)}
    expected = n * n - sum(c * c for c in counts.values())
    if len(counts) < 2:
        assert ours is None
        return
    assert ours == pytest.approx(1 - (n - 1) * disagreeing / expected, abs=1e-9)


def test_pairwise_figures_only_for_pairs_that_share_items():
    """Issue 15 finding 3: a kappa and a confusion table for every pair grew with annotators²."""
    ratings = {
        "i1": {"a": "x", "b": "x"},
        "i2": {"a": "y", "b": "x"},
        "i3": {"c": "x", "d": "y"},
        "i4": {"c": "y", "d": "y"},
    }
    row = agreement.report({"p": ratings})["properties"]["p"]
    assert set(row["cohen_kappa"]) == {"a|b", "c|d"}  # a and c share nothing: no figure at all
    assert set(row["confusion"]) == {"a|b", "c|d"}
    assert row["pairwise"] == {"annotators": 4, "of": 4, "pairs": 2}
    assert row["confusion"]["a|b"]["matrix"] == agreement.confusion(ratings, "a", "b")["matrix"] == [[1, 0], [1, 0]]


def test_a_crowd_on_the_same_items_is_bounded_to_the_busiest_annotators(monkeypatch):
    monkeypatch.setattr(agreement, "PAIR_BUDGET", 100)
    monkeypatch.setattr(agreement, "PAIR_ANNOTATORS", 5)
    crowd = {f"i{n}": {f"ann{a:02d}": "xy"[(a + n) % 2] for a in range(30 if n < 3 else 3)} for n in range(20)}
    row = agreement.report({"p": crowd})["properties"]["p"]
    assert row["pairwise"] == {"annotators": 5, "of": 30, "pairs": 10}
    busiest = {"ann00", "ann01", "ann02", "ann03", "ann04"}  # the three on every item, then by name
    assert {name for pair in row["cohen_kappa"] for name in pair.split("|")} == busiest
    assert len(row["confusion"]) <= agreement.CONFUSION_TABLES
    assert row["fleiss_kappa"] is not None or row["krippendorff_alpha"] is not None  # everyone still counts
