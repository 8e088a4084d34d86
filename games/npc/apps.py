from django.apps import AppConfig


def _resume_runs() -> list[str]:
    from games.npc.benchmarks import resume_orphans

    return [f"benchmark run {run_id}" for run_id in resume_orphans()]


class NpcConfig(AppConfig):
    name = "games.npc"
    label = "npc"
    verbose_name = "NPCs, LLM calls and benchmark runs"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart(_resume_runs)
