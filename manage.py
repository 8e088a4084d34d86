#!/usr/bin/env python
"""Django's command-line utility for the Arena."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena_site.settings")
    from django.core.management import execute_from_command_line

    from arena_site.startup import load_settings_or_exit

    load_settings_or_exit(lambda: execute_from_command_line(sys.argv))


if __name__ == "__main__":
    main()
