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
- Cohen's kappa: per annotator pair that shares items, over the items both labelled; pairs named
  "a|b", a < b; computed for the ``PAIR_ANNOTATORS`` annotators with the most labels (so memory
  and time stay bounded whatever the number of annotators; the report says how many it covers);
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
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import precision_recall_fscore_support
from statsmodels.stats.inter_rater import fleiss_kappa

Ratings = Mapping[str, Mapping[str, str]]


def _clean(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


# Pairwise figures (Cohen's kappa, per-pair confusion tables) exist only for pairs that share an
# item, computed sparsely from the labels. Their work grows with sum over items of (labels on the
# item)^2, which a panel where thousands label the same items makes huge: past PAIR_BUDGET (or
# PAIR_TABLE_CELLS of tables) they cover only the PAIR_ANNOTATORS annotators with the most labels.
# The whole-panel figures (Fleiss, alpha, percent, pooled confusion) always cover everyone.
PAIR_BUDGET = 4_000_000
PAIR_TABLE_CELLS = 16_000_000
PAIR_ANNOTATORS = 40
PAIR_CELLS = 2400  # annotators x categories in one dense pair computation (bounds its memory)
CONFUSION_TABLES = 12  # per property: the pairs sharing the most items


@dataclass(frozen=True)
class Coded:
    """Ratings as integer codes, one entry per label (sparse): ``item[k]``, ``annotator[k]`` and
    ``code[k]`` (category index) of label k.

    Every statistic below reads these arrays, so memory grows with the number of labels, never
    with annotators x items or with annotator pairs.
    """

    items: list[str]
    annotators: list[str]
    categories: list[str]
    item: np.ndarray
    annotator: np.ndarray
    code: np.ndarray

    @classmethod
    def of(cls, ratings: Ratings) -> Coded:
        items = sorted(ratings)
        annotators = sorted({a for labels in ratings.values() for a in labels})
        categories = sorted({label for labels in ratings.values() for label in labels.values()})
        row = {a: k for k, a in enumerate(annotators)}
        code = {c: k for k, c in enumerate(categories)}
        size = sum(len(labels) for labels in ratings.values())
        item_of = np.empty(size, dtype=np.int64)
        annotator_of = np.empty(size, dtype=np.int64)
        code_of = np.empty(size, dtype=np.int64)
        k = 0
        for col, item in enumerate(items):
            labels = ratings[item]
            n = len(labels)
            item_of[k : k + n] = col
            annotator_of[k : k + n] = [row[a] for a in labels]
            code_of[k : k + n] = [code[v] for v in labels.values()]
            k += n
        return cls(items, annotators, categories, item_of, annotator_of, code_of)

    @cached_property
    def counts(self) -> np.ndarray:
        """items x categories: how many annotators gave each category to each item."""
        size = len(self.categories)
        flat = np.bincount(self.item * size + self.code, minlength=len(self.items) * size)
        return flat.reshape(len(self.items), size)

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

    def pair_tables(self, chosen: np.ndarray) -> np.ndarray:
        """``tables[i, j]``: the categories x categories counts of (chosen[i]'s label, chosen[j]'s
        label) over the items both labelled, from one sparse product (only shared items count)."""
        from scipy import sparse

        n, size = len(chosen), len(self.categories)
        local = np.full(len(self.annotators), -1, dtype=np.int64)
        local[chosen] = np.arange(n)
        keep = local[self.annotator] >= 0
        rows = local[self.annotator[keep]] * size + self.code[keep]
        indicator = sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.int64), (rows, self.item[keep])), shape=(n * size, len(self.items))
        )
        product = (indicator @ indicator.T).toarray().reshape(n, size, n, size)
        return product.transpose(0, 2, 1, 3)

    def sparse_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(first, second, tables) of every pair of annotators sharing an item (first < second),
        or None when that is over budget."""
        from scipy import sparse

        if int((self.per_item.astype(np.int64) ** 2).sum()) > PAIR_BUDGET:
            return None
        size, people = len(self.categories), len(self.annotators)
        rows = self.annotator * size + self.code
        indicator = sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.int64), (rows, self.item)), shape=(people * size, len(self.items))
        )
        product = (indicator @ indicator.T).tocoo()
        a, c1 = np.divmod(product.row.astype(np.int64), size)
        b, c2 = np.divmod(product.col.astype(np.int64), size)
        upper = a < b
        a, b, c1, c2, data = a[upper], b[upper], c1[upper], c2[upper], product.data[upper]
        keys, index = np.unique(a * people + b, return_inverse=True)
        if keys.size * size * size > PAIR_TABLE_CELLS:
            return None
        tables = np.zeros((keys.size, size, size), dtype=np.int64)
        np.add.at(tables, (index, c1, c2), data)
        first, second = np.divmod(keys, people)
        return first, second, tables

    def most_labelling(self) -> np.ndarray:
        """The annotators pairwise figures cover: those with the most labels (ties by name)."""
        limit = min(PAIR_ANNOTATORS, max(2, PAIR_CELLS // max(1, len(self.categories))))
        per_annotator = np.bincount(self.annotator, minlength=len(self.annotators))
        order = np.lexsort((np.arange(len(self.annotators)), -per_annotator))
        return np.sort(order[:limit])


def _kappas(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each categories x categories table (NaN where undefined)."""
    totals = tables.sum(axis=(-2, -1)).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.trace(tables, axis1=-2, axis2=-1) / totals
        expected = (tables.sum(axis=-1) * tables.sum(axis=-2)).sum(axis=-1) / totals**2
        kappa = (observed - expected) / (1.0 - expected)
    undefined = (totals < 2) | np.isclose(expected, 1.0, rtol=0, atol=1e-12)
    return np.where(undefined, np.nan, kappa)


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
    table = coded.pair_tables(np.array(sorted((a, b))))[0, 1]
    return _clean(_kappas(table))


def cohen_kappa(ratings: Ratings, a: str, b: str) -> float | None:
    coded = Coded.of(ratings)
    if a not in coded.annotators or b not in coded.annotators or a == b:
        return None
    return _cohen(coded, coded.annotators.index(a), coded.annotators.index(b))


def _pairwise(coded: Coded) -> tuple[dict[str, float | None], dict[str, Any], dict[str, int]]:
    """Cohen's kappa of every covered pair that shares an item, the confusion tables of the pairs
    sharing the most items, and what was covered."""
    coverage = {"annotators": len(coded.annotators), "of": len(coded.annotators), "pairs": 0}
    found = coded.sparse_pairs()
    if found is not None:
        first, second, pair_tables = found
        names = coded.annotators
    else:
        chosen = coded.most_labelling()
        coverage["annotators"] = len(chosen)
        if len(chosen) < 2:
            return {}, {}, coverage
        tables = coded.pair_tables(chosen)
        first, second = np.triu_indices(len(chosen), k=1)
        keep = tables[first, second].sum(axis=(-2, -1)) > 0
        first, second = first[keep], second[keep]
        pair_tables = tables[first, second]
        names = [coded.annotators[i] for i in chosen]
    shared = pair_tables.sum(axis=(-2, -1))
    kappas = _kappas(pair_tables)
    cohen = {pair_name(names[i], names[j]): _clean(k) for i, j, k in zip(first, second, kappas, strict=True)}
    top = np.lexsort((second, first, -shared))[:CONFUSION_TABLES]
    confusion = {
        pair_name(names[first[t]], names[second[t]]): {
            "rows": names[first[t]],
            "columns": names[second[t]],
            "labels": coded.categories,
            "matrix": pair_tables[t].tolist(),
        }
        for t in sorted(top, key=lambda t: (first[t], second[t]))
    }
    coverage["pairs"] = len(cohen)
    return cohen, confusion, coverage


def cohen_kappas(ratings: Ratings) -> dict[str, float | None]:
    return _pairwise(Coded.of(ratings))[0]


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
    low, high = sorted((a, b))
    table = coded.pair_tables(np.array([low, high]))[0, 1]
    matrix = table if low == a else table.T
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
    rows: list[dict[str, Any]] = []
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
    cohen, confusion_tables, coverage = _pairwise(coded)
    return {
        "fleiss_kappa": _fleiss(coded),
        "krippendorff_alpha": _alpha(coded),
        "percent_agreement": _percent(coded),
        "cohen_kappa": cohen,
        "items": len(coded.items),
        "fleiss_items": int((coded.per_item == len(coded.annotators)).sum()) if coded.annotators else 0,
        "labels": int(coded.per_item.sum()),
        "annotators": coded.annotators,
        "pairwise": coverage,
        "confusion": confusion_tables,
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
        "fleiss_items": max([row["fleiss_items"] for row in rows] or [0]),
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
