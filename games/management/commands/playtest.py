"""manage.py playtest [DOMAIN ...] [--think 2] [--speed X]: can every bundled scenario be won at
human pace, and does it last 2-6 real minutes at its default pace? Plays each with the planner
(games/playtest.py, simulated time: never slept) and prints a line per scenario; exits with
status 1 when one is lost or, at the default pace, lasts less than 2 or more than 6 minutes."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.playtest import THINK_SECONDS, WINDOW_MINUTES, bundled_scenarios, playtest


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
        low, high = WINDOW_MINUTES
        failed = timed_wrong = 0
        for scenario in scenarios:
            row = playtest(scenario, think=options["think"], speed=options["speed"])
            failed += not row.passed
            # a pace given on the command line is an experiment: only the default is held to the window
            wrong = options["speed"] is None and row.in_window is False
            timed_wrong += wrong
            mark = "FAIL" if not row.passed or wrong else "ok  "
            window = {None: "reading-bound", True: "in window", False: f"outside {low:g}-{high:g} min"}
            self.stdout.write(
                f"{mark} {row.domain:9} {row.slug:40} {row.minutes:5.1f} min ({window[row.in_window]}) at "
                f"{row.pace}  {row.verdict}" + (f"  ({row.refused} refused)" if row.refused else "")
            )
        self.stdout.write(f"{len(scenarios) - failed} of {len(scenarios)} bundled scenarios won at human pace")
        if failed:
            raise CommandError(f"{failed} bundled scenario(s) were not won")
        if timed_wrong:
            raise CommandError(
                f"{timed_wrong} bundled scenario(s) last less than {low:g} or more than {high:g} minutes"
            )
