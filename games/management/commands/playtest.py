"""manage.py playtest [DOMAIN ...] [--think 2] [--speed X]: can every bundled scenario be won at
human pace? Plays each with the planner (games/playtest.py) and prints a line per scenario; exits
with status 1 when one fails."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.playtest import THINK_SECONDS, bundled_scenarios, playtest


class Command(BaseCommand):
    help = "Play every bundled scenario with the planner at human pace and report completion."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("domains", nargs="*", help="tasks, recipes, kitchen, itinerary (default: all)")
        parser.add_argument("--think", type=float, default=THINK_SECONDS, help="real seconds per decision")
        parser.add_argument("--speed", type=float, default=None, help="game units per second (default: domain's)")

    def handle(self, *args: Any, **options: Any) -> None:
        scenarios = [s for d in (options["domains"] or [None]) for s in bundled_scenarios(d)]
        if not scenarios:
            raise CommandError("no bundled scenarios found; run manage.py seed_demo first")
        failed = 0
        for scenario in scenarios:
            row = playtest(scenario, think=options["think"], speed=options["speed"])
            failed += not row.passed
            mark = "ok  " if row.passed else "FAIL"
            self.stdout.write(
                f"{mark} {row.domain:9} {row.slug:40} {row.minutes:5.1f} min at {row.speed:g}/s  "
                f"{row.verdict}" + (f"  ({row.refused} refused)" if row.refused else "")
            )
        self.stdout.write(f"{len(scenarios) - failed} of {len(scenarios)} bundled scenarios won at human pace")
        if failed:
            raise CommandError(f"{failed} bundled scenario(s) were not won")
