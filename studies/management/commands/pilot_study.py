"""``manage.py pilot_study STUDY --participants N``: scripted participants through a whole study.

Without ``--url`` it starts its own Daphne on a free loopback port (same settings and database) and
stops it afterwards. Pilots are marked as such (a signed link parameter), so they are kept out of
the analysis and exports by default and can be deleted from the design page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import IO, Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena_site.loopback import ServerExited, ServerTimedOut, free_port, stop, wait_for_http
from studies import pilot
from studies.models import Study
from studies.pilot_tokens import pilot_token

SERVER_LOG_TAIL = 3000  # characters of the server's log shown when a pilot fails


def tail(log: IO[bytes], size: int = SERVER_LOG_TAIL) -> str:
    log.flush()
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - size))
    return log.read().decode(errors="replace")


@contextmanager
def local_server(log: Any, errors: IO[bytes]) -> Iterator[str]:
    """A Daphne on 127.0.0.1:<free port>, ready when /healthz answers; always stopped. Its log
    (errors and tracebacks) goes to the file ``errors``: a pipe nobody read would block the server
    once full, and the file tells why a pilot failed."""
    port = free_port()
    command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "arena_site.asgi:application"]
    process = subprocess.Popen(
        command, cwd=settings.BASE_DIR, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=errors
    )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_for_http(process, f"{url}/healthz", timeout=90, request_timeout=5)
        except ServerExited:
            raise CommandError(f"the server did not start:\n{tail(errors, 2000)}") from None
        except ServerTimedOut:
            raise CommandError("the server did not answer /healthz within 90 s") from None
        log(f"server: {url} (Daphne, pid {process.pid})")
        yield url
    finally:
        stop(process, timeout=10)


def link_params(study: Study, n: int, prolific: bool, stamp: str) -> dict[str, Any]:
    """How pilot ``n`` enters: ``?pid=`` by default; as Prolific's link would with ``prolific``."""
    if not prolific:
        return {}
    return {
        "id_param": study.id_param or "pid",
        "entry_params": {"STUDY_ID": f"pilot-{study.slug}", "SESSION_ID": f"session-{stamp}-{n + 1}"},
    }


class Command(BaseCommand):
    help = "Run scripted pilot participants through a study (consent to completion code) against the real server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="The study's link name (slug) or id.")
        parser.add_argument("--participants", type=int, default=2, help="How many pilots (default 2).")
        parser.add_argument("--url", help="A running server of this deployment (default: start one on loopback).")
        parser.add_argument("--seed", type=int, default=0, help="Seed for the pilots' choices and answers.")
        parser.add_argument("--think", type=float, default=0.2, help="Longest pause before each action, seconds.")
        parser.add_argument(
            "--timeout", type=float, default=900.0, help="Give a pilot up after this many seconds (default 900)."
        )
        parser.add_argument(
            "--prolific",
            action="store_true",
            help="Enter as Prolific sends people: the study's id parameter (PROLIFIC_PID), STUDY_ID and a SESSION_ID.",
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        ref = options["study"]
        study = Study.objects.filter(slug=ref).first() or (
            Study.objects.filter(pk=int(ref)).first() if ref.isdigit() else None
        )
        if study is None:
            raise CommandError(f"no study {ref!r}; give its link name (see /studies/) or id")
        count = options["participants"]
        if not 1 <= count <= 200:
            raise CommandError("--participants must be between 1 and 200")
        log = self.stdout.write
        token = pilot_token(study)
        stamp = time.strftime("%Y%m%d%H%M%S")
        ids = [f"pilot-{stamp}-{n + 1}" for n in range(count)]

        def run(url: str) -> list[pilot.PilotResult]:
            with ThreadPoolExecutor(max_workers=min(count, 16)) as pool:
                futures = [
                    pool.submit(
                        pilot.run_participant,
                        url,
                        study.slug,
                        token,
                        external_id,
                        seed=options["seed"] * 1000 + n,
                        think_seconds=options["think"],
                        timeout_seconds=options["timeout"],
                        log=None if options["json"] else log,
                        **link_params(study, n, options["prolific"], stamp),
                    )
                    for n, external_id in enumerate(ids)
                ]
                return [future.result() for future in futures]

        started = time.monotonic()
        server_log = ""
        if options["url"]:
            results = run(options["url"])
        else:
            with tempfile.TemporaryFile() as errors:
                with local_server(log if not options["json"] else lambda _line: None, errors) as url:
                    results = run(url)
                if any(not result.completed for result in results):
                    server_log = tail(errors)
        report = pilot.summary(results, time.monotonic() - started)
        if server_log:
            report["server_log_tail"] = server_log  # what the server said, for a pilot that failed
        wrong_code = [r.participant for r in results if r.completed and r.completion_code != study.completion_code]
        unmarked = list(
            study.participants.filter(external_id__in=ids, is_pilot=False).values_list("external_id", flat=True)
        )
        report["wrong_completion_code"] = wrong_code
        report["not_marked_as_pilot"] = unmarked
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            log(
                f"{report['completed']}/{report['participants']} pilots completed {report['episodes']} episodes "
                f"({report['actions']} actions, {report['rejected']} rejected) in {report['seconds']} s"
            )
            for failure in report["failed"]:
                log(self.style.ERROR(f"  {failure['participant']}: {failure['error']}"))
            if server_log:
                log(f"the end of the server's log:\n{server_log}")
        if unmarked:
            raise CommandError(
                f"{len(unmarked)} pilots were counted as real participants (the server at --url does not share "
                "this deployment's SECRET_KEY); mark them dropped out on the monitor page"
            )
        if report["failed"] or wrong_code:
            raise CommandError("some pilots did not complete the study (see above)")
