from django.apps import AppConfig


def _cut_off_generator_runs() -> list[int]:
    from games.studio.runs import cut_off_runs

    return cut_off_runs()


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Every domain's rule sets and named parts, and every hook, import now: a missing module
        # stops the start with its name instead of changing a game's behaviour later.
        from games import hooks
        from games.engine import registry

        registry.check_all()
        hooks.check()

        from arena_site import background

        background.on_restart("games.generate", _cut_off_generator_runs, "generator run")
