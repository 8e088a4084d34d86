from importlib import import_module
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from games.importers import DATASETS, ImportProblem


class Command(BaseCommand):
    help = "Import a public benchmark data set (idempotent and atomic): " + ", ".join(DATASETS)

    def add_arguments(self, parser):
        parser.add_argument("dataset", choices=sorted(DATASETS))
        parser.add_argument(
            "path", help="The data file or folder (e.g. ../shared/datasets/timearena/dependencygraph.json)"
        )

    def handle(self, *args, dataset: str, path: str, **options):
        target = Path(path)
        if not target.exists():
            raise CommandError(f"{path} does not exist")
        try:
            module = import_module(DATASETS[dataset])
        except ModuleNotFoundError:
            raise CommandError(f"the {dataset} importer is not installed yet") from None
        try:
            with transaction.atomic():
                summary = module.import_dataset(target, log=lambda line: self.stderr.write(line))
        except ImportProblem as error:
            raise CommandError(f"nothing imported: {error}") from None
        self.stdout.write(f"{dataset}: {summary}")
