"""Advance due real-time games from a process of its own (deployments with several ASGI workers)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games import scheduler


class Command(BaseCommand):
    help = (
        "Apply what comes due in real-time games (completions, arrivals, time limits). Run one or more "
        "beside the ASGI servers and set GAMES_SCHEDULER=external there."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=None, help="Stop after this many seconds.")

    def handle(self, *args, seconds=None, **options):
        self.stdout.write("scheduler running (Ctrl+C stops it)")
        try:
            scheduler.run_forever(stop_after=seconds)
        except KeyboardInterrupt:
            self.stdout.write("scheduler stopped")
