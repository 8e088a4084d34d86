from django.apps import AppConfig


def _cut_off_jobs() -> list[int]:
    from studies.export_jobs import cut_off_jobs

    return cut_off_jobs()


def _cut_off_pilots() -> list[int]:
    from studies.pilot_runs import cut_off_runs

    return cut_off_runs()


class StudiesConfig(AppConfig):
    name = "studies"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart("studies.run_export", _cut_off_jobs, "study export")
        background.on_restart("studies.run_pilots", _cut_off_pilots, "pilot run")
