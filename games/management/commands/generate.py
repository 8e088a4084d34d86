"""``manage.py generate DOMAIN --count N --seed S [knobs] [--json] [--save]``: new instances with
their certified optimum (games/generators). ``--save`` stores them as scenarios
``generated/<family>-NNN`` (source ``generated``), which benchmarks and studies select like any
other scenarios (e.g. ``benchmark tasks --scenarios 'generated/tasks-s7-*'``)."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.generators.family import domains, generate, module
from games.generators.knobs import KnobError


class Command(BaseCommand):
    help = "Generate scenario instances with difficulty knobs, each with its solver-computed optimum."

    def add_arguments(self, parser: Any) -> None:
        subparsers = parser.add_subparsers(dest="domain", required=True, metavar="DOMAIN")
        for domain in domains():
            generator = module(domain)
            sub = subparsers.add_parser(domain, help=f"generate {domain} instances")
            sub.add_argument("--count", type=int, default=5, help="instances (default 5)")
            sub.add_argument("--seed", type=int, default=0, help="the same seed and knobs give the same instances")
            sub.add_argument(
                "--max-seconds",
                type=float,
                default=10.0,
                help="solver budget per instance: the deterministic work of about that many seconds on the "
                "reference machine, so the answer is the same on every machine (default 10)",
            )
            sub.add_argument("--json", action="store_true", help="print one JSON list")
            sub.add_argument("--save", action="store_true", help="store the instances as scenarios")
            for knob in generator.KNOBS:
                flag = "--" + knob.name.replace("_", "-")
                if knob.kind is bool:
                    sub.add_argument(flag, dest=f"knob_{knob.name}", action="store_const", const=True, help=knob.help)
                else:
                    sub.add_argument(
                        flag,
                        dest=f"knob_{knob.name}",
                        help=f"{knob.help} ({knob.low}-{knob.high}, default {knob.default})",
                    )

    def handle(self, *args: Any, **options: Any) -> None:
        knobs = {key[5:]: value for key, value in options.items() if key.startswith("knob_") and value is not None}

        def log(line: str) -> None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

        try:
            instances = generate(
                options["domain"],
                count=options["count"],
                seed=options["seed"],
                knobs=knobs,
                max_seconds=options["max_seconds"],
                log=log,
            )
        except KnobError as error:
            raise CommandError(str(error)) from None
        if options["save"]:
            from games.scenarios import save_generated

            for slug, changed in save_generated(options["domain"], instances):
                log(f"{'saved' if changed else 'unchanged'}: {slug}")
        self.stdout.write(json.dumps(instances, indent=None if options["json"] else 2))
