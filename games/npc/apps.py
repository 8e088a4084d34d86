from django.apps import AppConfig


def _cut_off_runs() -> list[int]:
    from games.npc.benchmarks import cut_off_runs

    return cut_off_runs()


class NpcConfig(AppConfig):
    name = "games.npc"
    label = "npc"
    verbose_name = "NPCs, LLM calls and benchmark runs"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart("npc.benchmark", _cut_off_runs, "benchmark run")
