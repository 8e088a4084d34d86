import json
import sys
from typing import Any

from django.core.management.base import CommandError

from games.engine import registry
from games.management.domain_command import DomainCommand, UsageError, _handler_module


class Command(DomainCommand):
    """``benchmark DOMAIN --agent AGENT ...`` runs NPC agents headlessly (``games.npc.cli``);
    without ``--agent`` the domain's own benchmark runs (``games/cli/<domain>.py``)."""

    command = "benchmark"
    help = "Run headless benchmark episodes and print the paper-style metrics."

    def add_arguments(self, parser: Any) -> None:
        from games.npc.cli import configure as configure_npc

        self._domain_required: dict[str, list[Any]] = {}
        subparsers = parser.add_subparsers(dest="domain", required=True, metavar="DOMAIN")
        for domain in registry.domains():
            module = _handler_module(domain)
            configure = getattr(module, f"configure_{self.command}", None) if module else None
            sub = subparsers.add_parser(domain, help=f"{self.command} for {domain}")
            sub.add_argument("--json", action="store_true", help="print one JSON value")
            if configure is not None:
                configure(sub)
                # The domain's required options apply to its own benchmark, not to --agent runs:
                # checked in handle() instead of by argparse.
                for action in sub._actions:
                    if action.required and action.option_strings:
                        action.required = False
                        self._domain_required.setdefault(domain, []).append(action)
            configure_npc(sub)

    def handle(self, *args: Any, **options: Any) -> None:
        # --again and --resume name an NPC run, whose agent is already known.
        if not (options.get("agent") or options.get("again") or options.get("resume")):
            for action in getattr(self, "_domain_required", {}).get(options["domain"], []):
                if options.get(action.dest) is None:
                    raise CommandError(
                        f"{action.option_strings[0]} is required for the {options['domain']} benchmark "
                        "(or give --agent to benchmark an NPC agent)"
                    )
            return super().handle(*args, **options)
        from games.npc.cli import run

        def log(line: str) -> None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

        try:
            result = run(options["domain"], options, log)
        except UsageError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(json.dumps(result, indent=None if options.get("json") else 2, default=str))
