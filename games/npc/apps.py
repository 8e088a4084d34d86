from django.apps import AppConfig


class NpcConfig(AppConfig):
    name = "games.npc"
    label = "npc"
    verbose_name = "NPCs, LLM calls and benchmark runs"
