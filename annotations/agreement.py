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
- Cohen's kappa: per annotator pair, over the items both labelled; pairs named "a|b", a < b.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

Ratings = Mapping[str, Mapping[str, str]]


def _clean(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def annotators_of(ratings: Ratings) -> list[str]:
    return sorted({a for labels in ratings.values() for a in labels})


def categories_of(ratings: Ratings) -> list[str]:
    return sorted({label for labels in ratings.values() for label in labels.values()})


def _agreeing_pair_share(labels: list[str]) -> float:
    n = len(labels)
    agreeing = sum(c * (c - 1) for c in Counter(labels).values())
    return agreeing / (n * (n - 1))


def percent_agreement(ratings: Ratings) -> float | None:
    shares = [_agreeing_pair_share(list(labels.values())) for labels in ratings.values() if len(labels) >= 2]
    return 100.0 * sum(shares) / len(shares) if shares else None


def pair_name(a: str, b: str) -> str:
    first, second = sorted((a, b))
    return f"{first}|{second}"


def cohen_kappa(ratings: Ratings, a: str, b: str) -> float | None:
    shared = [(labels[a], labels[b]) for labels in ratings.values() if a in labels and b in labels]
    if len(shared) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = cohen_kappa_score([x for x, _ in shared], [y for _, y in shared], replace_undefined_by=np.nan)
    return _clean(kappa)


def cohen_kappas(ratings: Ratings) -> dict[str, float | None]:
    return {pair_name(a, b): cohen_kappa(ratings, a, b) for a, b in combinations(annotators_of(ratings), 2)}


def complete_items(ratings: Ratings) -> list[str]:
    """Items labelled by every annotator who labelled anything (the items Fleiss' kappa uses)."""
    everyone = set(annotators_of(ratings))
    return sorted(item for item, labels in ratings.items() if everyone and set(labels) == everyone)


def fleiss(ratings: Ratings) -> float | None:
    items = complete_items(ratings)
    if len(annotators_of(ratings)) < 2 or not items:
        return None
    index = {c: i for i, c in enumerate(categories_of(ratings))}
    annotators = annotators_of(ratings)
    data = np.array([[index[ratings[item][a]] for a in annotators] for item in items])
    table, _ = aggregate_raters(data, n_cat=len(index))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _clean(fleiss_kappa(table, method="fleiss"))


def krippendorff_alpha(ratings: Ratings) -> float | None:
    categories = categories_of(ratings)
    annotators = annotators_of(ratings)
    if len(categories) < 2 or len(annotators) < 2:
        return None
    index = {c: float(i) for i, c in enumerate(categories)}
    items = sorted(ratings)
    matrix = np.full((len(annotators), len(items)), np.nan)
    for col, item in enumerate(items):
        for row, annotator in enumerate(annotators):
            label = ratings[item].get(annotator)
            if label is not None:
                matrix[row, col] = index[label]
    if not any(np.count_nonzero(~np.isnan(matrix[:, col])) >= 2 for col in range(len(items))):
        return None  # no item has two labels: nothing to compare
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    return _clean(alpha)


def confusion(ratings: Ratings, a: str, b: str) -> dict[str, Any]:
    """Counts of (a's label, b's label) over the items both labelled: rows are a, columns b."""
    labels = categories_of(ratings)
    index = {c: i for i, c in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for item_labels in ratings.values():
        if a in item_labels and b in item_labels:
            matrix[index[item_labels[a]]][index[item_labels[b]]] += 1
    return {"rows": a, "columns": b, "labels": labels, "matrix": matrix}


def pooled_confusion(ratings: Ratings) -> dict[str, Any]:
    """Every ordered annotator pair on every item pooled (symmetric): where labels get confused."""
    labels = categories_of(ratings)
    index = {c: i for i, c in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for item_labels in ratings.values():
        values = list(item_labels.values())
        for i, x in enumerate(values):
            for j, y in enumerate(values):
                if i != j:
                    matrix[index[x]][index[y]] += 1
    return {"labels": labels, "matrix": matrix}


def disputed_items(ratings: Ratings, limit: int = 10) -> list[dict[str, Any]]:
    """Items whose annotators disagree most (share of disagreeing pairs), most disputed first."""
    rows = []
    for item, labels in ratings.items():
        if len(labels) < 2:
            continue
        disagreement = 1.0 - _agreeing_pair_share(list(labels.values()))
        if disagreement > 0:
            counts = Counter(labels.values())
            rows.append({"item": item, "disagreement": disagreement, "labels": dict(sorted(counts.items()))})
    rows.sort(key=lambda r: (-r["disagreement"], -len(r["labels"]), r["item"]))
    return rows[:limit]


def property_report(ratings: Ratings, disputed_limit: int = 10) -> dict[str, Any]:
    annotators = annotators_of(ratings)
    return {
        "fleiss_kappa": fleiss(ratings),
        "krippendorff_alpha": krippendorff_alpha(ratings),
        "percent_agreement": percent_agreement(ratings),
        "cohen_kappa": cohen_kappas(ratings),
        "items": len(ratings),
        "fleiss_items": len(complete_items(ratings)),
        "labels": sum(len(labels) for labels in ratings.values()),
        "annotators": annotators,
        "confusion": {pair_name(a, b): confusion(ratings, a, b) for a, b in combinations(annotators, 2)},
        "pooled_confusion": pooled_confusion(ratings),
        "disputed": disputed_items(ratings, disputed_limit),
    }


def pooled_ratings(by_property: Mapping[str, Ratings]) -> dict[str, dict[str, str]]:
    """All properties as one nominal variable: units are (item, property), labels kept apart by name."""
    return {
        f"{item} {prop}": {a: f"{prop}={label}" for a, label in labels.items()}
        for prop, ratings in by_property.items()
        for item, labels in ratings.items()
    }


def report(by_property: Mapping[str, Ratings], disputed_limit: int = 10) -> dict[str, Any]:
    """The whole agreement report: per property, overall (pooled), and the most disputed items overall."""
    properties = {prop: property_report(ratings, disputed_limit) for prop, ratings in by_property.items()}
    overall = property_report(pooled_ratings(by_property), disputed_limit=0)
    del overall["confusion"], overall["pooled_confusion"], overall["disputed"]
    return {"properties": properties, "overall": overall, "disputed": disputed_overall(by_property, disputed_limit)}


def disputed_overall(by_property: Mapping[str, Ratings], limit: int = 10) -> list[dict[str, Any]]:
    """Items ranked by their disagreement summed over properties, with the disputed properties named."""
    totals: dict[str, float] = {}
    detail: dict[str, dict[str, dict[str, int]]] = {}
    for prop, ratings in by_property.items():
        for row in disputed_items(ratings, limit=len(ratings)):
            totals[row["item"]] = totals.get(row["item"], 0.0) + row["disagreement"]
            detail.setdefault(row["item"], {})[prop] = row["labels"]
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
