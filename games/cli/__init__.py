"""Per-domain handlers behind the shared management commands.

``manage.py plan|replay|describe|score|benchmark DOMAIN ...`` look up ``games.cli.<domain>`` and
call two functions named for the command: ``configure_<command>(parser)`` adds the domain's
options, ``run_<command>(options, log)`` does the work and returns a JSON-serialisable value
(printed with ``--json``, or summarised otherwise). ``log`` writes progress lines to stderr.
A domain that does not implement a command is reported as such.
"""
