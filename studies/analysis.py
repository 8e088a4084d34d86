"""Statistics of a study: descriptives per condition, ANOVA and post-hoc comparisons (SPEC section 10).

Pure: takes observations (participant, condition, value), returns plain results. The numbers come
from scipy and statsmodels: within-subject designs get AnovaRM and paired t-tests over the same
participants with Holm's correction (``holm``, checked against statsmodels' ``multipletests``),
since Tukey HSD assumes independent
groups; between-subject designs get ols + anova_lm and Tukey HSD (``pairwise_tukeyhsd``). This
module only shapes data for them and says why a statistic is missing when the data cannot support it.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, stdev
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import AnovaRM, anova_lm
from statsmodels.stats.multicomp import pairwise_tukeyhsd


@dataclass(frozen=True)
class Observation:
    participant: str
    condition: str
    value: float


@dataclass(frozen=True)
class GroupSummary:
    condition: str
    mean: float | None
    sd: float | None
    n: int

    @property
    def se(self) -> float | None:
        if self.sd is None or self.n < 2:
            return None
        return self.sd / math.sqrt(self.n)


@dataclass(frozen=True)
class AnovaResult:
    method: str  # "repeated-measures ANOVA" or "one-way ANOVA"
    f: float | None
    p: float | None
    df_num: float
    df_den: float
    n_subjects: int
    excluded_subjects: int = 0
    note: str = ""


@dataclass(frozen=True)
class Pairwise:
    a: str
    b: str
    meandiff: float
    p_adj: float | None
    lower: float
    upper: float
    reject: bool


@dataclass(frozen=True)
class MeasureAnalysis:
    key: str
    label: str
    groups: list[GroupSummary]
    anova: AnovaResult | None
    anova_reason: str
    pairwise: list[Pairwise] = field(default_factory=list)
    pairwise_reason: str = ""
    pairwise_method: str = "Tukey HSD"

    @property
    def n(self) -> int:
        return sum(group.n for group in self.groups)


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) or math.isinf(value) else float(value)


def _negligible(sum_of_squares: float, values: Any) -> bool:
    """Whether an error sum of squares is zero up to floating-point round-off for these values."""
    scale = float(np.abs(values).max()) if np.size(values) else 1.0
    return sum_of_squares <= 1e-20 * max(scale, 1.0) ** 2 * max(np.size(values), 1)


def _flat_note(values: Any) -> str:
    """Why F is undefined when every score is the same (all 0 in a kitchen nobody served in)."""
    if np.size(values) and float(np.ptp(values)) <= 1e-12 * max(float(np.abs(values).max()), 1.0):
        return f"F is undefined: every score is {float(np.asarray(values).flat[0]):.2f}, in every condition"
    return ""


def summarize(observations: Iterable[Observation], conditions: Sequence[str]) -> list[GroupSummary]:
    """Mean, sample SD (n - 1) and n per condition, in the order of ``conditions``."""
    by_condition: dict[str, list[float]] = defaultdict(list)
    for obs in observations:
        by_condition[obs.condition].append(obs.value)
    groups = []
    for condition in conditions:
        values = by_condition.get(condition, [])
        groups.append(
            GroupSummary(
                condition=condition,
                mean=fmean(values) if values else None,
                sd=stdev(values) if len(values) >= 2 else None,
                n=len(values),
            )
        )
    return groups


def _cell_means(observations: Iterable[Observation]) -> pd.DataFrame:
    """One row per participant × condition (several episodes of a cell are averaged)."""
    frame = pd.DataFrame([(o.participant, o.condition, o.value) for o in observations], columns=["s", "c", "y"])
    if frame.empty:
        return frame
    return frame.groupby(["s", "c"], as_index=False)["y"].mean()


def repeated_measures_anova(observations: Iterable[Observation]) -> tuple[AnovaResult | None, str]:
    """AnovaRM over participants who have every condition (the others are left out and counted)."""
    cells = _cell_means(observations)
    if cells.empty:
        return None, "no data yet"
    conditions = sorted(cells["c"].unique())
    if len(conditions) < 2:
        return None, "needs at least two conditions with data"
    per_subject = cells.groupby("s")["c"].nunique()
    complete = per_subject[per_subject == len(conditions)].index
    excluded = len(per_subject) - len(complete)
    cells = cells[cells["s"].isin(complete)]
    if len(complete) < 2:
        return None, f"needs at least two participants with every condition (have {len(complete)})"
    table = cells.pivot(index="s", columns="c", values="y").to_numpy(dtype=float)
    residual = table - table.mean(axis=1, keepdims=True) - table.mean(axis=0, keepdims=True) + table.mean()
    if _negligible((residual**2).sum(), table):
        # Round-off would otherwise give AnovaRM a meaningless F (even a negative one).
        return AnovaResult(
            method="repeated-measures ANOVA",
            f=None,
            p=None,
            df_num=float(len(conditions) - 1),
            df_den=float((len(conditions) - 1) * (len(complete) - 1)),
            n_subjects=len(complete),
            excluded_subjects=excluded,
            note=_flat_note(table)
            or "F is undefined: every participant differs between conditions by exactly the same amount",
        ), ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero variance gives NaN, reported as undefined
        table = AnovaRM(cells, depvar="y", subject="s", within=["c"]).fit().anova_table
    row = table.loc["c"]
    result = AnovaResult(
        method="repeated-measures ANOVA",
        f=_finite(row["F Value"]),
        p=_finite(row["Pr > F"]),
        df_num=float(row["Num DF"]),
        df_den=float(row["Den DF"]),
        n_subjects=len(complete),
        excluded_subjects=excluded,
        note="" if _finite(row["F Value"]) is not None else "F is undefined: no variance within participants",
    )
    return result, ""


def one_way_anova(observations: Iterable[Observation]) -> tuple[AnovaResult | None, str]:
    """ols(y ~ C(condition)) + anova_lm: one observation per participant (cells averaged)."""
    cells = _cell_means(observations)
    if cells.empty:
        return None, "no data yet"
    if cells["c"].nunique() < 2:
        return None, "needs at least two conditions with data"
    if len(cells) <= cells["c"].nunique():
        return None, "needs more participants than conditions"
    within_ss = float(cells.groupby("c")["y"].transform(lambda v: (v - v.mean()) ** 2).sum())
    if _negligible(within_ss, cells["y"].to_numpy(dtype=float)):
        k = cells["c"].nunique()
        return AnovaResult(
            method="one-way ANOVA",
            f=None,
            p=None,
            df_num=float(k - 1),
            df_den=float(len(cells) - k),
            n_subjects=len(cells),
            note=_flat_note(cells["y"].to_numpy(dtype=float)) or "F is undefined: no variance within conditions",
        ), ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        table = anova_lm(ols("y ~ C(c)", data=cells).fit(), typ=2)
    row = table.loc["C(c)"]
    f = _finite(row["F"])
    result = AnovaResult(
        method="one-way ANOVA",
        f=f,
        p=_finite(row["PR(>F)"]),
        df_num=float(row["df"]),
        df_den=float(table.loc["Residual", "df"]),
        n_subjects=len(cells),
        note="" if f is not None else "F is undefined: no variance within conditions",
    )
    return result, ""


def tukey_hsd(observations: Iterable[Observation], alpha: float = 0.05) -> tuple[list[Pairwise], str]:
    """Tukey HSD over participant × condition means (statsmodels' pairwise_tukeyhsd)."""
    cells = _cell_means(observations)
    if cells.empty or cells["c"].nunique() < 2:
        return [], "needs at least two conditions with data"
    if len(cells) <= cells["c"].nunique():
        return [], "needs more observations than conditions"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = pairwise_tukeyhsd(cells["y"].to_numpy(dtype=float), cells["c"].to_numpy(), alpha=alpha)
    names = list(result.groupsunique)
    pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    out = []
    for k, (a, b) in enumerate(pairs):
        p = _finite(result.pvalues[k])
        out.append(
            Pairwise(
                a=str(a),
                b=str(b),
                meandiff=float(result.meandiffs[k]),
                p_adj=p,
                lower=float(result.confint[k][0]),
                upper=float(result.confint[k][1]),
                reject=bool(result.reject[k]),
            )
        )
    return out, ""


PAIRED_HOLM = "paired t-tests, Holm-corrected"


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (as statsmodels' ``multipletests(method="holm")``, which
    the tests compare it with): the k-th smallest times the number of hypotheses left, never below
    the one before it, at most 1. Written out because that function runs a full garbage collection
    on every call (statsmodels 0.15), 0.15 s in a web process, seven times per analysis page."""
    order = sorted(range(len(pvalues)), key=lambda k: pvalues[k])
    adjusted = [0.0] * len(pvalues)
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * float(pvalues[k])))
        adjusted[k] = running
    return adjusted


def paired_holm(observations: Iterable[Observation], alpha: float = 0.05) -> tuple[list[Pairwise], str]:
    """Within-subject post-hoc: for each pair of conditions a paired t-test over the participants
    who have both (scipy's ttest_rel on participant x condition means), p-values Holm-corrected over
    all pairs (``holm``); the interval is the paired difference's 95% CI."""
    cells = _cell_means(observations)
    if cells.empty or cells["c"].nunique() < 2:
        return [], "needs at least two conditions with data"
    wide = cells.pivot_table(index="s", columns="c", values="y")
    names = sorted(str(c) for c in wide.columns)
    tests = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            both = wide[[names[i], names[j]]].dropna()
            if len(both) < 2:
                continue
            diff = (both[names[j]] - both[names[i]]).to_numpy(dtype=float)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                test = stats.ttest_rel(both[names[j]], both[names[i]])
                interval = test.confidence_interval(1 - alpha)
            tests.append((names[i], names[j], float(diff.mean()), _finite(test.pvalue), interval))
    if not tests:
        return [], "needs participants who played both conditions of a pair"
    raw = [p for *_, p, _ in tests]
    finite = [k for k, p in enumerate(raw) if p is not None]
    adjusted: list[float | None] = [None] * len(tests)
    rejected = [False] * len(tests)
    if finite:
        p_holm = holm([p for p in raw if p is not None])  # in the order of ``finite``
        for k, p in zip(finite, p_holm, strict=True):
            adjusted[k], rejected[k] = p, p <= alpha
    return [
        Pairwise(
            a=a,
            b=b,
            meandiff=meandiff,
            p_adj=adjusted[k],
            lower=_finite(float(interval.low)) or 0.0,
            upper=_finite(float(interval.high)) or 0.0,
            reject=rejected[k],
        )
        for k, (a, b, meandiff, _, interval) in enumerate(tests)
    ], ""


def analyse(
    key: str, label: str, observations: Sequence[Observation], conditions: Sequence[str], within: bool
) -> MeasureAnalysis:
    """Descriptives, the design's ANOVA and post-hoc comparisons for one measure: paired t-tests
    with Holm's correction within subjects, Tukey HSD between subjects."""
    groups = summarize(observations, conditions)
    anova, reason = repeated_measures_anova(observations) if within else one_way_anova(observations)
    pairwise, pairwise_reason = paired_holm(observations) if within else tukey_hsd(observations)
    return MeasureAnalysis(
        key=key,
        label=label,
        groups=groups,
        anova=anova,
        anova_reason=reason,
        pairwise=pairwise,
        pairwise_reason=pairwise_reason,
        pairwise_method=PAIRED_HOLM if within else "Tukey HSD",
    )
