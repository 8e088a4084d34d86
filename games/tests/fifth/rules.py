"""The fifth game's rules: the play loop's toy chores under their own name and rule-set id."""

from __future__ import annotations

from games.tests.toy import ToyRules


class ChoresRules(ToyRules):
    id = "chores-v1"
    domain = "chores"


RULES = ChoresRules()
