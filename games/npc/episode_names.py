"""A benchmark episode's key ("bundled/Omelette_Tomato-Soup|time_constraints=True|agents=1|seed=0")
as people read it on the run page: the scenario's title, then its settings in words ("with time
constraints · seed 0"); the key itself stays in the CSV and on hover."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class EpisodeName:
    title: str  # the scenarios' titles ("Quick lunch"), else their slugs
    settings: str  # "with time constraints · seed 0"


def setting(name: str, value: str) -> str | None:
    """One option of an episode in words: "with time constraints", "alpha 1.5", "3 agents" (None:
    the default team of one)."""
    words = name.replace("_", " ")
    if value in ("True", "False"):
        return f"{'with' if value == 'True' else 'without'} {words}"
    if name == "agents":
        return None if value == "1" else f"{value} agents"
    if name == "attempt":
        return f"attempt {int(value) + 1}" if value.isdigit() else f"attempt {value}"
    return f"{words} {value}"


def slugs_of(key: str) -> list[str]:
    return key.split("|", 1)[0].split("+")


def episode_name(key: str, titles: Mapping[str, str]) -> EpisodeName:
    """``titles``: scenario slug -> title (a slug without one is shown as it is)."""
    parts = key.split("|")[1:]
    title = " + ".join(titles.get(slug) or slug for slug in slugs_of(key))
    settings = []
    for part in parts:
        for pair in part.split(","):
            name, _, value = pair.partition("=")
            said = setting(name, value) if value else pair
            if said:
                settings.append(said)
    return EpisodeName(title, " · ".join(settings))
