"""Participant bonuses: a per-study formula over each episode's results, summed and capped, exported
in the recruiters' bulk-bonus format (``participant_id,amount``, as Prolific's "bulk bonus" takes).

The formula is one arithmetic expression evaluated per episode by ``simpleeval`` (no attribute
access, no imports, bounded powers): names are ``score`` (the domain's headline, 0-100) and the
episode's metrics by name (e.g. ``served``, ``progress``); functions ``min``, ``max``, ``round``,
``abs``. A metric an episode lacks counts as 0.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from simpleeval import InvalidExpression, SimpleEval

from arena_site.spreadsheet import safe_cell
from games import metrics
from studies.models import EpisodeStatus, Participant, ParticipantStatus, Study

FUNCTIONS = {"min": min, "max": max, "round": round, "abs": abs}
CENT = Decimal("0.01")


class BonusError(ValueError):
    """The formula cannot be evaluated; the message says why."""


class _Names(dict):
    def __missing__(self, key: str) -> float:
        return 0.0  # a metric this episode does not have


def episode_names(domain: str, result: Mapping[str, Any]) -> dict[str, float]:
    names = _Names()
    for key, value in (result or {}).items():
        if isinstance(value, int | float):  # bool is an int: True counts 1
            names[key] = float(value)
    names["score"] = float(metrics.headline(domain, dict(result or {})) or 0.0)
    return names


def evaluate(formula: str, names: Mapping[str, float]) -> float:
    try:
        value = SimpleEval(names=names, functions=FUNCTIONS).eval(formula)
    except (InvalidExpression, SyntaxError, TypeError, ZeroDivisionError, ValueError) as error:
        raise BonusError(f"The bonus formula cannot be evaluated: {error}") from None
    except OverflowError:  # 10.0**400: a server error on saving the study
        raise BonusError("The bonus formula gives a number too large to pay.") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BonusError("The bonus formula must give a number.")
    try:
        amount = float(value)
    except OverflowError:  # a whole number past any float (round(1e308 * 10))
        raise BonusError("The bonus formula gives a number too large to pay.") from None
    if not math.isfinite(amount):  # 1e308 * 10 is inf, inf - inf is nan: the bonus export failed on them
        raise BonusError(f"The bonus formula must give a finite number (it gave {amount:g}).")
    return amount


def check_formula(formula: str) -> None:
    """Raise ``BonusError`` unless the formula gives a number for a typical episode."""
    evaluate(formula, _Names(score=50.0))


def bonus_for(participant: Participant) -> Decimal:
    """The participant's bonus: the formula over their finished episodes, summed, capped, in cents."""
    study = participant.study
    if not study.bonus_formula:
        return Decimal("0.00")
    total = 0.0
    for episode in participant.episodes.filter(status=EpisodeStatus.DONE).select_related("scenario"):
        total += evaluate(study.bonus_formula, episode_names(episode.scenario.domain, episode.metrics))
    if not math.isfinite(total):  # finite per episode, 1e308 each, summed past any float
        raise BonusError(f"The bonus formula's amounts add up to a number too large to pay ({total:g}).")
    amount = max(Decimal("0"), Decimal(str(total)))
    if study.bonus_cap is not None:
        amount = min(amount, study.bonus_cap)
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def bonus_rows(study: Study) -> list[tuple[str, Decimal]]:
    """(recruiter's participant id, amount) for completed, non-pilot participants with a bonus."""
    rows = []
    participants = study.participants.filter(status=ParticipantStatus.COMPLETED, is_pilot=False).exclude(external_id="")
    for participant in participants.order_by("pk"):
        amount = bonus_for(participant)
        if amount > 0:
            rows.append((participant.external_id, amount))
    return rows


def bonus_csv(study: Study) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["participant_id", "amount"])
    for participant_id, amount in bonus_rows(study):
        writer.writerow([safe_cell(participant_id), f"{amount:.2f}"])
    return out.getvalue()
