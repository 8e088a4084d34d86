"""Plain words for the terms result panels and benchmark tables use (alpha, R-efficiency, AS ...).

One dictionary, keyed by the metric's key or column heading, read by the game result panel, the
replay and the benchmark tables.
"""

from __future__ import annotations

TERMS: dict[str, str] = {
    "counts_per_agent": "The counts above for each seat of the game: who did what, and whose actions were refused.",
    "kitchen:agents": "Each cook's steps, which add up to the steps played: accepted (a command carried "
    "out), refused (a command the kitchen refused) and idle (no command carried out: "
    '"Wait this step", none sent, or busy chopping).',
    # kitchen (CuisineWorld)
    "alpha": "How much time the level gives: order lifetimes and the gap between orders grow with alpha "
    "(1 is the tightest).",
    "task_interval": "Steps between two new orders.",
    "kitchen:success_rate": "Orders served on time out of the orders that were served or ran out.",
    "kitchen:completed": "Orders served on time.",
    "kitchen:failed": "Orders that ran out before they were served.",
    "kitchen:pending": "Orders still open when the game ended.",
    "kitchen:thrown_away": "Items put back into storage (thrown away).",
    "CoS": "Collaboration score: the mean success rate over the alpha settings.",
    "kitchen:level": "The kitchen level played.",
    "kitchen:steps": "Steps the game lasted.",
    # recipes (Recipe2Plan)
    "progress": "Share of the recipe steps done.",
    "tasks:progress": "Share of the work done (each action counts by its minutes).",
    "tasks:completed": "Whether every task was finished.",
    "efficiency": "How much time working in parallel saved: the steps' total duration minus the time "
    "taken, as a share of the time steps ran by themselves (higher is better; below 0 when the cook "
    "stood idle while nothing ran).",
    "itinerary:efficiency": "Up to 20 points for a cheap or quick trip, given when every wish is met.",
    "r_efficiency": "R-efficiency: the efficiency relative to the reference plan's (100 = as good as the plan).",
    "R-Eff": "R-efficiency: the efficiency relative to the reference plan's (100 = as good as the plan).",
    "se": "Success × efficiency: the R-efficiency when every recipe was finished, else 0.",
    "S×E": "Success × efficiency: the R-efficiency when every recipe was finished, else 0.",
    "makespan_seconds": "Time from the start to the end of the last step.",
    "reference_makespan_seconds": "How long the reference plan (the scenario's stored plan, which "
    "R-efficiency compares with) takes from start to end.",
    "rejections": "Actions the rules refused.",
    "recipes:success": "Whether every step of every recipe was done, with no time window missed.",
    "recipes:status": "How the game stands: success, failed or still playing.",
    "recipes:reason": "Why the game ended: every step done, or what stopped it (a missed window, a dead "
    "end, the player).",
    "executed_seconds": "How long the steps ran in all (the ones that run by themselves included).",
    "autonomous_seconds": "The duration of the finished steps that run by themselves (oven, stove ...).",
    "recipes:actions": "Step actions the rules accepted.",
    "time_constraints": "Whether the recipes' time windows between steps were enforced.",
    # tasks (TimeArena)
    "AS": "Average score: the mean progress (percent of the work done) over the episodes.",
    "CS": "Completion speed: progress per minute of game time, averaged over the episodes.",
    "CR": "Completion rate: the share of episodes where every task was finished.",
    "CT": "Completion time: the mean game minutes to finish everything, over the episodes that did.",
    "completion_speed": "Progress per minute of game time (progress ÷ the minute it was reached).",
    "completion_time": "Game minute when every task was done.",
    "tasks:progress_time": "Game minute when the progress above was reached.",
    "tasks:time": "Game minute when the episode ended.",
    "tasks:ended": "Why the episode ended.",
    "tasks:counts": "Actions by outcome: valid (started), waits (necessary when nothing could start), and the "
    "refused ones by reason.",
    # itinerary
    "executability": "Up to 60 points: the share of the plan's elementary checks that passed (each train exists "
    "and matches the timetable, each action starts where the traveller is, times run forward, walks take their "
    "listed minutes).",
    "constraints": "Up to 20 points, counted once every action could be carried out: the share of the rule checks "
    "the trip passed (opening and rest hours, meals, the days and sights the brief asks for, the return home, the "
    "budget and the end time). Every check counts alike, so a sight missed among many kept hours costs little "
    "here: the goals line says how many of the brief's wishes were met.",
    "total": "Executability + constraints + efficiency, out of 100.",
    "itinerary:objective": "What the brief asks to keep low (money or time), the trip's value of it and the range "
    "the efficiency points are given over.",
    "itinerary:spent": "Money spent on the trip (CNY).",
    "itinerary:finished_at": "When the trip's last train or visit ended.",
    "itinerary:over": "Why the trip ended.",
}


# Row names where the key's own words would not do ("se", "r efficiency"); the rest read as the key.
LABELS: dict[str, str] = {
    "counts_per_agent": "counts by player",
    "kitchen:agents": "commands by cook",
    "se": "S×E",
    "r_efficiency": "R-efficiency",
    "progress": "progress (%)",
    "recipes:efficiency": "efficiency (%)",
    "makespan_seconds": "makespan (s)",
    "executed_seconds": "executed (s)",
    "autonomous_seconds": "autonomous (s)",
    # the recipes page writes them as its clock does ("21:30", games.recipes_view.result_text)
    "recipes:makespan_seconds": "makespan",
    "recipes:reference_makespan_seconds": "reference plan's makespan",
    "reference_makespan_seconds": "reference makespan (s)",
    "recipes:executed_seconds": "executed",
    "recipes:autonomous_seconds": "runs by itself",
    "tasks:time": "ended at minute",
    "tasks:ended": "why it ended",
    "recipes:reason": "why it ended",
    "itinerary:over": "why it ended",
}

# Rows whose words hold only once the game has ended: a game still running (its replay so far)
# names them this way instead, with this explanation.
WHILE_RUNNING: dict[str, tuple[str, str]] = {
    "itinerary:finished_at": ("last leg ended", "When the trip's latest train or visit ended; the trip goes on."),
}

# The rows that say why a game ended: the result panel leaves them out where its first line said it.
WHY_ENDED = {"tasks:ended", "recipes:reason", "itinerary:over"}
# The rows that are the game's settings rather than how it went: a study participant does not see
# them (a condition that varies alpha, or time constraints, would tell them what is being compared).
SETTINGS = {"kitchen:level", "kitchen:alpha", "kitchen:task_interval", "recipes:time_constraints"}


def label(key: str, domain: str = "") -> str:
    """A result row's name: the key in words, or its ``LABELS`` entry."""
    return LABELS.get(f"{domain}:{key}") or LABELS.get(key) or key.replace("_", " ")


def explain(term: str, domain: str = "") -> str:
    """The plain words for ``term``; a domain may mean something else by it (``domain:term``)."""
    return TERMS.get(f"{domain}:{term}") or TERMS.get(term, "")
