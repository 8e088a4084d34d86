from django.apps import AppConfig


def _resume_exports() -> list[str]:
    from studies.export_jobs import resume_orphans

    return [f"study export {job_id}" for job_id in resume_orphans()]


class StudiesConfig(AppConfig):
    name = "studies"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart(_resume_exports)
