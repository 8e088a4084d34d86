"""Dashboard panels the games app contributes (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games import selectors
from games.models import Game, GameStatus


def researcher_panel(user: Any) -> dict[str, Any]:
    counts = selectors.scenario_counts()
    total = sum(counts.values())
    running = Game.objects.filter(status=GameStatus.RUNNING)
    live, paused = running.filter(paused=False).count(), running.filter(paused=True).count()
    scenarios = (
        ", ".join(f"{n} {domain}" for domain, n in sorted(counts.items())) or "no scenarios yet (make run loads them)"
    )
    return {
        "title": f"Games: {live} running, {paused} paused",
        "body": f"{total} scenarios: {scenarios}. Watch any running game live, or start one.",
        "link": reverse("games:list")
        + ("?status=running" if live else f"?status={selectors.PAUSED}" if paused else ""),
        "link_label": "Watch games" if live else "See the paused games" if paused else "Start a game",
    }


def player_panel(user: Any) -> dict[str, Any] | None:
    """A person's own games: every one still running, the one played last first (a researcher may
    have seated them in several, so this is how they find them; the panel offered only the newest
    created, which need not be the one they were playing), else their finished ones."""
    unfinished = list(selectors.unfinished_for_user(user))
    if unfinished:
        many = len(unfinished) > 1
        return {
            "title": f"Your {len(unfinished)} games are waiting" if many else "Your game is waiting",
            "body": (
                "Not finished yet; the one you played last comes first. Join in, or pick up where you left off."
                if many
                else "It is running; join in, or pick up where you left off."
            ),
            "items": [
                {
                    "label": f"{game.scenario.title} (game {game.pk})",
                    "url": reverse("games:play", args=[game.pk]),
                    "action": "Continue playing",
                    "note": "paused" if game.paused else "",
                }
                for game in unfinished
            ],
        }
    finished = selectors.games_for_user(user).filter(status=GameStatus.FINISHED).count()
    if not finished:
        return None
    return {
        "title": f"Your games ({finished} finished)",
        "body": "See your results and watch the replays.",
        "link": reverse("games:mine"),
        "link_label": "My games",
    }
