"""The statistics match statsmodels / scipy computed directly on the same known data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.anova import AnovaRM
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from studies.analysis import Observation, analyse, one_way_anova, repeated_measures_anova, summarize, tukey_hsd

# Six participants × three conditions (a within-subject design), values chosen by hand.
WITHIN = {
    "alone": [3.0, 2.5, 4.0, 3.5, 2.0, 3.0],
    "1 LLM": [3.5, 3.0, 4.5, 4.0, 3.0, 3.5],
    "2 LLM": [4.5, 4.0, 5.0, 4.5, 3.5, 4.5],
}


def within_observations():
    return [
        Observation(participant=f"p{i}", condition=condition, value=value)
        for condition, values in WITHIN.items()
        for i, value in enumerate(values)
    ]


def test_descriptives_are_mean_sample_sd_and_n():
    groups = summarize(within_observations(), list(WITHIN))
    for group in groups:
        values = np.array(WITHIN[group.condition])
        assert group.mean == pytest.approx(values.mean())
        assert group.sd == pytest.approx(values.std(ddof=1))
        assert group.n == 6
        assert group.se == pytest.approx(values.std(ddof=1) / math.sqrt(6))


def test_a_condition_without_data_has_no_mean():
    groups = summarize(within_observations(), [*WITHIN, "random"])
    assert groups[-1].n == 0 and groups[-1].mean is None and groups[-1].sd is None


def test_repeated_measures_anova_matches_anovarm():
    result, reason = repeated_measures_anova(within_observations())
    assert reason == ""
    frame = pd.DataFrame(
        [(o.participant, o.condition, o.value) for o in within_observations()], columns=["s", "c", "y"]
    )
    expected = AnovaRM(frame, "y", "s", within=["c"]).fit().anova_table.loc["c"]
    assert result.f == pytest.approx(expected["F Value"])
    assert result.p == pytest.approx(expected["Pr > F"])
    assert (result.df_num, result.df_den) == (2.0, 10.0)
    assert result.n_subjects == 6
    assert result.p < 0.001  # the third condition is clearly higher for everyone


def test_repeated_measures_leaves_out_participants_missing_a_condition():
    observations = [*within_observations(), Observation("p9", "alone", 1.0)]
    result, _ = repeated_measures_anova(observations)
    assert result.n_subjects == 6 and result.excluded_subjects == 1


def test_repeated_measures_averages_several_episodes_of_one_cell():
    doubled = within_observations() + [
        Observation(o.participant, o.condition, o.value + 1.0) for o in within_observations()
    ]
    result, _ = repeated_measures_anova(doubled)
    shifted = [Observation(o.participant, o.condition, o.value + 0.5) for o in within_observations()]
    same, _ = repeated_measures_anova(shifted)
    assert result.f == pytest.approx(same.f)


def test_one_way_anova_matches_scipy_f_oneway():
    groups = {"alone": [2.0, 3.0, 2.5, 3.5], "llm": [4.0, 3.5, 4.5, 5.0], "random": [2.5, 2.0, 3.0, 2.0]}
    observations = [Observation(f"{c}{i}", c, v) for c, values in groups.items() for i, v in enumerate(values)]
    result, reason = one_way_anova(observations)
    expected = stats.f_oneway(*groups.values())
    assert reason == ""
    assert result.f == pytest.approx(expected.statistic)
    assert result.p == pytest.approx(expected.pvalue)
    assert (result.df_num, result.df_den) == (2.0, 9.0)


def test_tukey_matches_pairwise_tukeyhsd():
    observations = within_observations()
    pairs, reason = tukey_hsd(observations)
    assert reason == ""
    values = np.array([o.value for o in observations])
    labels = np.array([o.condition for o in observations])
    expected = pairwise_tukeyhsd(values, labels)
    assert [(p.a, p.b) for p in pairs] == [("1 LLM", "2 LLM"), ("1 LLM", "alone"), ("2 LLM", "alone")]
    for k, pair in enumerate(pairs):
        assert pair.meandiff == pytest.approx(expected.meandiffs[k])
        assert pair.p_adj == pytest.approx(expected.pvalues[k])
        assert pair.reject == bool(expected.reject[k])
        assert (pair.lower, pair.upper) == pytest.approx(tuple(expected.confint[k]))


def test_too_little_data_says_why_instead_of_failing():
    one = [Observation("p1", "alone", 3.0)]
    assert repeated_measures_anova(one) == (None, "needs at least two conditions with data")
    assert repeated_measures_anova([]) == (None, "no data yet")
    two = [Observation("p1", "a", 3.0), Observation("p1", "b", 4.0)]
    result, reason = repeated_measures_anova(two)
    assert result is None and "two participants" in reason
    assert tukey_hsd(two)[0] == []


def test_no_variance_gives_undefined_f_not_a_crash():
    flat = [Observation(f"p{i}", c, 3.0) for i in range(4) for c in ("a", "b")]
    measure = analyse("trust", "Trust", flat, ["a", "b"], within=True)
    assert measure.anova is not None and measure.anova.f is None
    assert measure.anova.note == "F is undefined: every score is 3.00, in every condition"
    # the same shift for everyone: F undefined, though the conditions differ
    shifted = [Observation(f"p{i}", c, i + (2.0 if c == "b" else 0.0)) for i in range(4) for c in ("a", "b")]
    measure = analyse("trust", "Trust", shifted, ["a", "b"], within=True)
    assert measure.anova.f is None and "by exactly the same amount" in measure.anova.note
    between = analyse("trust", "Trust", flat, ["a", "b"], within=False)
    assert between.anova.f is None and between.anova.note.startswith("F is undefined: every score is 3.00")


def test_within_subject_post_hoc_is_paired_t_tests_with_holm_correction():
    from statsmodels.stats.multitest import multipletests

    from studies.analysis import PAIRED_HOLM, paired_holm

    pairs, reason = paired_holm(within_observations())
    assert reason == ""
    names = sorted(WITHIN)
    expected_pairs = [(names[i], names[j]) for i in range(3) for j in range(i + 1, 3)]
    assert [(p.a, p.b) for p in pairs] == expected_pairs
    raw = [stats.ttest_rel(WITHIN[b], WITHIN[a]) for a, b in expected_pairs]
    reject, holm, _, _ = multipletests([t.pvalue for t in raw], method="holm")
    for k, pair in enumerate(pairs):
        a, b = expected_pairs[k]
        assert pair.meandiff == pytest.approx(np.mean(np.array(WITHIN[b]) - np.array(WITHIN[a])))
        assert pair.p_adj == pytest.approx(holm[k]) and pair.reject == bool(reject[k])
        assert (pair.lower, pair.upper) == pytest.approx(tuple(raw[k].confidence_interval()))
    # the paired test sees what independent groups hide: every participant rated 2 LLM above alone
    tukey = {(p.a, p.b): p.p_adj for p in tukey_hsd(within_observations())[0]}
    paired = {(p.a, p.b): p.p_adj for p in pairs}
    assert paired[("2 LLM", "alone")] < tukey[("2 LLM", "alone")]
    assert analyse("trust", "Trust", within_observations(), names, within=True).pairwise_method == PAIRED_HOLM
    assert analyse("trust", "Trust", within_observations(), names, within=False).pairwise_method == "Tukey HSD"


def test_paired_tests_use_only_participants_with_both_conditions():
    from studies.analysis import paired_holm

    partial = [*within_observations(), Observation("late", "alone", 1.0)]
    assert [(p.a, p.b, p.p_adj) for p in paired_holm(partial)[0]] == [
        (p.a, p.b, p.p_adj) for p in paired_holm(within_observations())[0]
    ]
    assert paired_holm([Observation("p1", "a", 3.0), Observation("p2", "b", 4.0)]) == (
        [],
        "needs participants who played both conditions of a pair",
    )


def test_holms_adjusted_p_values_are_statsmodels_own():
    import random

    from statsmodels.stats.multitest import multipletests

    from studies.analysis import holm

    draw = random.Random(7)
    cases = [[0.01], [0.04, 0.04, 0.2], [0.5, 0.9, 0.001, 0.03], [1.0, 0.0, 0.02]]
    cases += [[draw.random() ** 3 for _ in range(draw.randint(1, 12))] for _ in range(200)]
    for pvalues in cases:
        reject, expected, _, _ = multipletests(pvalues, alpha=0.05, method="holm")
        ours = holm(pvalues)
        assert ours == pytest.approx(list(expected), abs=1e-12), pvalues
        assert [p <= 0.05 for p in ours] == list(reject), pvalues
