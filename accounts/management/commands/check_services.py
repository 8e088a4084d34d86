from django.core.management.base import BaseCommand, CommandError

from arena_site.startup import ServiceUnavailable, check_services


class Command(BaseCommand):
    help = "Check that the database (DATABASE_URL) and Redis (REDIS_URL) are reachable."

    def handle(self, *args, **options):
        try:
            check_services()
        except ServiceUnavailable as error:
            raise CommandError(str(error)) from None
        self.stdout.write("services ok")
