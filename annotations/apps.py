from django.apps import AppConfig


def _resume_preannotations() -> list[str]:
    from annotations.preannotation import resume_orphans

    return [f"pre-annotation run {run_id}" for run_id in resume_orphans()]


class AnnotationsConfig(AppConfig):
    name = "annotations"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart(_resume_preannotations)
