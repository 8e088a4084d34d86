"""The base of the per-domain commands (plan, replay, describe, score, benchmark)."""

from __future__ import annotations

import json
import sys
from importlib import import_module
from types import ModuleType
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.engine import registry


class UsageError(ValueError):
    """Raised by a domain handler for bad arguments or input; shown as one clear error line."""


def _handler_module(domain: str) -> ModuleType | None:
    """The module with the domain's verbs, as its descriptor names it (None: it has no verbs)."""
    path = registry.descriptor(domain).cli
    return import_module(path) if path else None


class DomainCommand(BaseCommand):
    """Subcommand per domain; subclasses set ``command`` (e.g. "plan") and ``help``."""

    command = ""

    def add_arguments(self, parser: Any) -> None:
        subparsers = parser.add_subparsers(dest="domain", required=True, metavar="DOMAIN")
        for domain in registry.domains():
            module = _handler_module(domain)
            configure = getattr(module, f"configure_{self.command}", None) if module else None
            if configure is None:
                continue
            sub = subparsers.add_parser(domain, help=f"{self.command} for {domain}")
            sub.add_argument("--json", action="store_true", help="print one JSON value")
            configure(sub)

    def handle(self, *args: Any, **options: Any) -> None:
        domain = options["domain"]
        module = _handler_module(domain)
        run = getattr(module, f"run_{self.command}", None) if module else None
        if run is None:
            raise CommandError(f"'{self.command}' is not available for the {domain} domain")

        def log(line: str) -> None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

        try:
            result = run(options, log)
        except UsageError as error:
            raise CommandError(str(error)) from None
        if options.get("json"):
            self.stdout.write(json.dumps(result, indent=None, default=str))
        else:
            self.stdout.write(json.dumps(result, indent=2, default=str))
