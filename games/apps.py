from django.apps import AppConfig


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
