from django.apps import AppConfig


def _cut_off_runs() -> list[int]:
    from annotations.preannotation import cut_off_runs

    return cut_off_runs()


class AnnotationsConfig(AppConfig):
    name = "annotations"

    def ready(self) -> None:
        from arena_site import background

        background.on_restart("annotations.preannotate", _cut_off_runs, "pre-annotation run")
