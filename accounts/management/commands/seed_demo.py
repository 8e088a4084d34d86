"""Demo accounts and bundled content for a fresh install (used by ``make run``)."""

from __future__ import annotations

from importlib import import_module

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.roles import Role, grant

DEMO_PASSWORD = "arena-demo-2026"
DEMO_USERS = [("researcher", Role.RESEARCHER), ("annotator", Role.ANNOTATOR), ("participant", Role.PARTICIPANT)]
# Loaders of bundled content, "module:function"; each takes a ``log`` callable and is idempotent.
CONTENT_LOADERS = [
    "games.bundled:load_bundled",
    "annotations.demo:load_demo",
    "studies.demo:load_demo",
]


class Command(BaseCommand):
    help = "Create the demo accounts and load the bundled scenarios (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--quiet-logins", action="store_true", help="Do not print the demo logins.")

    def handle(self, *args, quiet_logins: bool = False, **options):
        users = get_user_model()
        with transaction.atomic():
            for username, role in DEMO_USERS:
                user, created = users.objects.get_or_create(username=username)
                if created:
                    user.set_password(DEMO_PASSWORD)
                    user.save()
                grant(user, role)
                if role == Role.RESEARCHER and not user.is_superuser:
                    user.is_superuser = True
                    user.save(update_fields=["is_superuser"])
        for path in CONTENT_LOADERS:
            module_name, func_name = path.split(":")
            try:
                loader = getattr(import_module(module_name), func_name)
            except (ImportError, AttributeError):
                continue
            loader(log=lambda line: self.stdout.write(f"  {line}"))
        if not quiet_logins:
            self.stdout.write("")
            self.stdout.write(f"Demo logins (password for all: {DEMO_PASSWORD}):")
            for username, role in DEMO_USERS:
                self.stdout.write(f"  {role.value:<12} {username}")
