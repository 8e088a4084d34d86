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
        except UnicodeDecodeError as error:
            raise CommandError(
                f"nothing imported: {path}: not UTF-8 text (byte {error.start}); is it the right file?"
            ) from None
        except RecursionError:
            raise CommandError(f"nothing imported: {path}: the JSON nests too deeply to be this data set") from None
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            # An importer that did not name the record: still one line, naming the file.
            raise CommandError(f"nothing imported: {path}: {type(error).__name__}: {error}") from None
        self.stdout.write(f"{dataset}: {summary}")
