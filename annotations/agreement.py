"""Inter-annotator agreement and model-vs-gold scores: pure statistics over nominal labels.

Input everywhere is ``Ratings``: item id -> {annotator name -> label}; an annotator who did not
label an item is simply absent. The coefficients come from the well-kept libraries
(scikit-learn's Cohen's kappa, statsmodels' Fleiss' kappa, the ``krippendorff`` package's alpha);
this module only shapes the data for them and turns undefined results (a single category, no
shared items) into ``None`` so reports and JSON say "not defined" instead of NaN.

Definitions we chose (docs/decisions.md, "Annotations"):
- percent agreement: over items with at least two labels, the share of agreeing annotator pairs,
  averaged over items, in percent (for complete data this is Fleiss' observed agreement x 100);
- Fleiss' kappa: over the items labelled by every annotator who labelled anything;
- Krippendorff's alpha (nominal): over all items, missing labels allowed;
- Cohen's kappa: per annotator pair, over the items both labelled; pairs named "a|b", a < b;
- overall: the mean over properties of each figure (properties have different label sets, so
  this is the usual summary rather than one pooled variable).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import fleiss_kappa

Ratings = Mapping[str, Mapping[str, str]]


def _clean(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class Coded:
    """Ratings as integer codes: ``matrix[a, i]`` is annotator a's category index on item i, -1 if missing.

    Every statistic below reads this one array, so a report over tens of thousands of labels stays
    vectorised (numpy) instead of looping over Python dicts per annotator pair.
    """

    items: list[str]
    annotators: list[str]
    categories: list[str]
    matrix: np.ndarray

    @classmethod
    def of(cls, ratings: Ratings) -> Coded:
        items = sorted(ratings)
        annotators = sorted({a for labels in ratings.values() for a in labels})
        categories = sorted({label for labels in ratings.values() for label in labels.values()})
        row = {a: k for k, a in enumerate(annotators)}
        code = {c: k for k, c in enumerate(categories)}
        matrix = np.full((len(annotators), len(items)), -1, dtype=np.int64)
        for col, item in enumerate(items):
            for annotator, label in ratings[item].items():
                matrix[row[annotator], col] = code[label]
        return cls(items, annotators, categories, matrix)

    @cached_property
    def counts(self) -> np.ndarray:
        """items x categories: how many annotators gave each category to each item."""
        counts = np.zeros((len(self.items), len(self.categories)), dtype=np.int64)
        rows, cols = np.nonzero(self.matrix.T >= 0)
        np.add.at(counts, (rows, self.matrix.T[rows, cols]), 1)
        return counts

    @cached_property
    def per_item(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @cached_property
    def agreeing_share(self) -> np.ndarray:
        """Per item, the share of annotator pairs that agree (NaN where fewer than two labels)."""
        n = self.per_item.astype(float)
        agreeing = (self.counts * (self.counts - 1)).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n >= 2, agreeing / (n * (n - 1)), np.nan)


def annotators_of(ratings: Ratings) -> list[str]:
    return sorted({a for labels in ratings.values() for a in labels})


def categories_of(ratings: Ratings) -> list[str]:
    return sorted({label for labels in ratings.values() for label in labels.values()})


def _percent(coded: Coded) -> float | None:
    shares = coded.agreeing_share[~np.isnan(coded.agreeing_share)]
    return float(100.0 * shares.mean()) if shares.size else None


def percent_agreement(ratings: Ratings) -> float | None:
    return _percent(Coded.of(ratings))


def pair_name(a: str, b: str) -> str:
    first, second = sorted((a, b))
    return f"{first}|{second}"


def _cohen(coded: Coded, a: int, b: int) -> float | None:
    x, y = coded.matrix[a], coded.matrix[b]
    both = (x >= 0) & (y >= 0)
    if both.sum() < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = cohen_kappa_score(
            x[both], y[both], labels=list(range(len(coded.categories))), replace_undefined_by=np.nan
        )
    return _clean(kappa)


def cohen_kappa(ratings: Ratings, a: str, b: str) -> float | None:
    coded = Coded.of(ratings)
    if a not in coded.annotators or b not in coded.annotators:
        return None
    return _cohen(coded, coded.annotators.index(a), coded.annotators.index(b))


def _cohens(coded: Coded) -> dict[str, float | None]:
    names = coded.annotators
    return {pair_name(names[a], names[b]): _cohen(coded, a, b) for a, b in combinations(range(len(names)), 2)}


def cohen_kappas(ratings: Ratings) -> dict[str, float | None]:
    return _cohens(Coded.of(ratings))


def complete_items(ratings: Ratings) -> list[str]:
    """Items labelled by every annotator who labelled anything (the items Fleiss' kappa uses)."""
    coded = Coded.of(ratings)
    return [item for item, n in zip(coded.items, coded.per_item, strict=True) if n and n == len(coded.annotators)]


def _fleiss(coded: Coded) -> float | None:
    complete = coded.per_item == len(coded.annotators)
    if len(coded.annotators) < 2 or not complete.any():
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _clean(fleiss_kappa(coded.counts[complete], method="fleiss"))


def fleiss(ratings: Ratings) -> float | None:
    return _fleiss(Coded.of(ratings))


def _alpha(coded: Coded) -> float | None:
    pairable = coded.counts[coded.per_item >= 2]  # units with one label carry no comparison
    if len(coded.categories) < 2 or not len(pairable):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            alpha = krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal")
        except ValueError:  # e.g. every pairable unit uses one category only
            return None
    return _clean(alpha)


def krippendorff_alpha(ratings: Ratings) -> float | None:
    return _alpha(Coded.of(ratings))


def _confusion(coded: Coded, a: int, b: int) -> dict[str, Any]:
    x, y = coded.matrix[a], coded.matrix[b]
    both = (x >= 0) & (y >= 0)
    size = len(coded.categories)
    matrix = np.bincount(x[both] * size + y[both], minlength=size * size).reshape(size, size)
    return {
        "rows": coded.annotators[a],
        "columns": coded.annotators[b],
        "labels": coded.categories,
        "matrix": matrix.tolist(),
    }


def confusion(ratings: Ratings, a: str, b: str) -> dict[str, Any]:
    """Counts of (a's label, b's label) over the items both labelled: rows are a, columns b."""
    coded = Coded.of(ratings)
    return _confusion(coded, coded.annotators.index(a), coded.annotators.index(b))


def _pooled_confusion(coded: Coded) -> dict[str, Any]:
    counts = coded.counts
    matrix = counts.T @ counts - np.diag(counts.sum(axis=0))  # ordered pairs of different annotators
    return {"labels": coded.categories, "matrix": matrix.tolist()}


def pooled_confusion(ratings: Ratings) -> dict[str, Any]:
    """Every ordered annotator pair on every item pooled (symmetric): where labels get confused."""
    return _pooled_confusion(Coded.of(ratings))


def _disputed(coded: Coded, limit: int | None) -> list[dict[str, Any]]:
    disagreement = 1.0 - coded.agreeing_share
    rows = []
    for index in np.flatnonzero(np.nan_to_num(disagreement) > 0):
        labels = {coded.categories[c]: int(n) for c, n in enumerate(coded.counts[index]) if n}
        rows.append({"item": coded.items[index], "disagreement": float(disagreement[index]), "labels": labels})
    rows.sort(key=lambda r: (-r["disagreement"], -len(r["labels"]), r["item"]))
    return rows if limit is None else rows[:limit]


def disputed_items(ratings: Ratings, limit: int | None = 10) -> list[dict[str, Any]]:
    """Items whose annotators disagree most (share of disagreeing pairs), most disputed first."""
    return _disputed(Coded.of(ratings), limit)


def property_report(ratings: Ratings, disputed_limit: int | None = 10) -> dict[str, Any]:
    coded = Coded.of(ratings)
    pairs = list(combinations(range(len(coded.annotators)), 2))
    return {
        "fleiss_kappa": _fleiss(coded),
        "krippendorff_alpha": _alpha(coded),
        "percent_agreement": _percent(coded),
        "cohen_kappa": _cohens(coded),
        "items": len(coded.items),
        "fleiss_items": int((coded.per_item == len(coded.annotators)).sum()) if coded.annotators else 0,
        "labels": int(coded.per_item.sum()),
        "annotators": coded.annotators,
        "confusion": {pair_name(coded.annotators[a], coded.annotators[b]): _confusion(coded, a, b) for a, b in pairs},
        "pooled_confusion": _pooled_confusion(coded),
        "disputed": _disputed(coded, disputed_limit),
    }


def _mean(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def overall(properties: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Overall figures: the mean over properties of each coefficient (undefined ones left out)."""
    rows = list(properties.values())
    pairs = sorted({pair for row in rows for pair in row["cohen_kappa"]})
    return {
        "fleiss_kappa": _mean([row["fleiss_kappa"] for row in rows]),
        "krippendorff_alpha": _mean([row["krippendorff_alpha"] for row in rows]),
        "percent_agreement": _mean([row["percent_agreement"] for row in rows]),
        "cohen_kappa": {pair: _mean([row["cohen_kappa"].get(pair) for row in rows]) for pair in pairs},
        "items": max([row["items"] for row in rows] or [0]),
        "labels": sum(row["labels"] for row in rows),
        "properties": len(rows),
    }


def report(by_property: Mapping[str, Ratings], disputed_limit: int = 10) -> dict[str, Any]:
    """The whole agreement report: per property, overall (means), and the most disputed items overall."""
    properties = {prop: property_report(ratings, disputed_limit=None) for prop, ratings in by_property.items()}
    disputed = disputed_overall(properties, disputed_limit)
    for row in properties.values():
        row["disputed"] = row["disputed"][:disputed_limit]
    return {"properties": properties, "overall": overall(properties), "disputed": disputed}


def disputed_overall(properties: Mapping[str, Mapping[str, Any]], limit: int = 10) -> list[dict[str, Any]]:
    """Items ranked by their disagreement summed over properties, with the disputed properties named."""
    totals: dict[str, float] = {}
    detail: dict[str, dict[str, dict[str, int]]] = {}
    for prop, row in properties.items():
        for entry in row["disputed"]:
            totals[entry["item"]] = totals.get(entry["item"], 0.0) + entry["disagreement"]
            detail.setdefault(entry["item"], {})[prop] = entry["labels"]
    ranked = sorted(totals, key=lambda item: (-totals[item], item))[:limit]
    return [{"item": item, "disagreement": totals[item], "properties": detail[item]} for item in ranked]


def model_scores(gold: Mapping[str, str], predicted: Mapping[str, str]) -> dict[str, Any]:
    """Precision, recall and F1 of model labels against gold, macro-averaged over the gold label values.

    Every gold item counts; an item the model gave no (valid) label for counts as a wrong prediction.
    """
    items = sorted(gold)
    if not items:
        return {"precision": None, "recall": None, "f1": None, "accuracy": None, "items": 0, "answered": 0}
    missing = "\x00missing"
    y_true = [gold[i] for i in items]
    y_pred = [predicted.get(i, missing) for i in items]
    labels = sorted(set(y_true))
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_true, y_pred, labels=labels, average="macro", zero_division=0
    )
    return {
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "accuracy": sum(t == p for t, p in zip(y_true, y_pred, strict=True)) / len(items),
        "items": len(items),
        "answered": sum(p != missing for p in y_pred),
    }


def majority(labels: Mapping[str, str]) -> str | None:
    """The most frequent label (ties broken alphabetically, so the choice is stable), for pre-filling gold."""
    if not labels:
        return None
    counts = Counter(labels.values())
    best = max(counts.values())
    return sorted(label for label, c in counts.items() if c == best)[0]
